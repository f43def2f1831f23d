import type { AppendLink } from './append-link';
import type { Kysely, Transaction } from 'kysely';
import type { z } from 'zod';

/**
 * Event-sourced storage shared by every service. Each service owns one Postgres schema (e.g.
 * "core_sys", "kv") holding its event log table and its read-model tables, with its own kysely
 * migration history in that schema. int8 columns read back as JS number in both dialects
 * (pg and PGlite); values beyond 2^53 throw.
 */
export type AnyDb = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type AnyTrx = Transaction<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A versioned event type: name is past tense ("SecretVersionWritten"), schema validates data. */
export interface EventType<N extends string = string, S extends z.ZodType = z.ZodType> {
  readonly name: N;
  /** the version new events are written at */
  readonly version: number;
  readonly schema: S;
  /**
   * Older versions still readable from the log, each with its upcaster to the version after it
   * (the last one's to `version`). Registered with the type, applied by the aggregate log's decode.
   */
  readonly priors?: readonly PriorVersion[];
}

/** An older version of an event type: its schema, and how its data becomes the next version's. */
export interface PriorVersion {
  readonly version: number;
  readonly schema: z.ZodType;
  /** data of this version (parsed by `schema`) to the input of the next version */
  readonly upcast: (data: unknown) => unknown;
}

export interface NewEvent {
  type: string;
  version: number; // schema version of the event type
  data: unknown;
}

/**
 * An event as an append writes it, before its log position exists: what a projection sees. The
 * WAL index is assigned at the very end of the transaction (see EventStore.append), after the
 * projection ran, so projections must not depend on `wal` / `hash`.
 */
export interface AppendedEvent {
  stream: string;
  /** position in the stream, starting at 1 */
  streamVersion: number;
  type: string;
  schemaVersion: number;
  data: unknown; // decrypted, validated against its EventType
  recordedAt: Date;
}

export interface StoredEvent extends AppendedEvent {
  /** gap-free, commit-ordered position in the service's log, starting at 1 */
  wal: number;
  /** hex SHA-256 over (prevHash, wal, stream, streamVersion, type, schemaVersion, ciphertext) */
  hash: string;
}

/** Who caused an event: the request's caller (never the token itself). */
export interface EventActor {
  accessor: string | null;
  entityId: string | null;
  requestId: string | null;
  /** the request's path from the root namespace */
  path: string | null;
}

/** A log row as stored (payload still encrypted): for replication and chain verification. */
export interface RawEvent {
  wal: number;
  stream: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  payload: Buffer;
  recordedAt: Date;
  hash: string;
}

/** The log's head: last WAL index (0 when empty) and the hash chain's head (all zeros when empty). */
export interface LogHead {
  lastWal: number;
  hash: string;
}

export type ChainVerification =
  | { ok: true; checked: number; lastWal: number; hash: string }
  | { ok: false; checked: number; wal: number; reason: 'gap' | 'hash_mismatch' };

export interface AppendOptions<T> {
  /**
   * Optimistic concurrency: the stream's current version must equal this (0 = stream must not
   * exist, "any" = no check). A mismatch throws ConcurrencyError (retryable by the service).
   */
  expectedVersion: number | 'any';
  /**
   * Read-model update, run in the same transaction: it commits with the events or not at all
   * (a projection that throws leaves no event, and its error reaches the caller unchanged). Runs
   * before the WAL index is assigned. The transaction is shared with the other appends of a
   * group-commit batch: act through `trx` only (never `db`, never another append), and expect to
   * be run again after a rollback (only the committed run's effects and result remain).
   */
  project?: (trx: AnyTrx, events: AppendedEvent[]) => Promise<T>;
  /**
   * The same read-model update in a form that serves many appends of a batch with one statement
   * (see ManyProjection); `project` is still required and used whenever a batch must run guarded.
   */
  projectMany?: ManyProjectionCall;
  /** follows this append through its batch (see AppendLink), e.g. to be `after` of the next one */
  link?: AppendLink;
  /**
   * The append this one was decided on, submitted earlier to the same stream and not yet
   * committed: this one commits only if that one commits first (same batch or an earlier one);
   * if it failed, this one fails with ConcurrencyError, to be decided again on fresh state.
   */
  after?: AppendLink;
}

/**
 * A projection of several appends in one go. The committer hands consecutive appends that carry
 * the same `projection` to one `apply` call, in order (several may write one read-model row: a hot
 * key's pipelined writes); it must leave what applying them one by one would, and answers one
 * result per append, in order. When it throws, the batch
 * runs again with each append's own `project` (which pins the failure on its append).
 */
export interface ManyProjection {
  apply(
    trx: AnyTrx,
    appends: ReadonlyArray<{ events: AppendedEvent[]; context: unknown }>,
  ): Promise<unknown[]>;
}

export interface ManyProjectionCall {
  projection: ManyProjection;
  /** what `apply` gets for this append beside its events */
  context: unknown;
}

export interface AppendResult<T> {
  events: StoredEvent[];
  /** stream version after the append */
  version: number;
  /** WAL index of this append's last event (without events: the log's head once it committed) */
  lastWal: number;
  projected: T;
}
