import { DomainError } from '@coffer/contracts';
import type { Cipher } from '@coffer/barrier';
import { currentCaller, type Transport } from '@coffer/transport';
import type { CallerContext } from '@coffer/contracts';
import { EventLogRepository } from './event-log.repository';
import { committerFor, type GroupCommitter } from './group-commit';
import { chainHash, GENESIS_HASH } from './hash';
import { assertSchemaName } from './migrate';
import type { EventRegistry } from './event-registry';
import { mergeByTime, ReplicaHistory } from './replica-history';
import type {
  AnyDb,
  AnyTrx,
  AppendOptions,
  AppendResult,
  ChainVerification,
  EventActor,
  LogHead,
  NewEvent,
  RawEvent,
  StoredEvent,
} from './event-store-types';

export interface EventStoreOptions {
  db: AnyDb;
  /** the service's schema (created by migrateSchema) */
  schema: string;
  cipher: Cipher;
  registry: EventRegistry;
  /** recordedAt of appended events; default wall clock */
  clock?: () => Date;
  /**
   * A service keeping the primary's rows in a replica log beside its own (`<schema>_replica`): its
   * history reads (foldStreamAt, lastEventsOfPrefixAt and namesAt at a time) then include the
   * replicated events, opened by the replication service over `transport`.
   */
  replicaLog?: ReplicaLogOptions;
}

export interface ReplicaLogOptions {
  transport: Pick<Transport, 'request'>;
  /**
   * The promotion fold's progress (`stream`, `version`: the former primary's version folded up
   * to); default `<schema>_replica.replica_folded` (serveEngineReplica's), core-sys keeps its own.
   */
  foldedTable?: string;
}

const MAX_READ_LIMIT = 10_000;

/** The actor recorded with an append: the caller's accessor, entity and request (never its token). */
function actorOf(caller: CallerContext | undefined): EventActor | undefined {
  if (!caller) return undefined;
  return {
    accessor: caller.accessor ?? null,
    entityId: caller.entityId ?? null,
    requestId: caller.requestId,
    path: caller.path ?? null,
  };
}
const VERIFY_BATCH = 1_000;

/**
 * A service's event log: append-only, payloads encrypted by the barrier, a gap-free WAL index in
 * commit order, and a SHA-256 hash chain over the ciphertexts.
 */
export class EventStore {
  readonly #db: AnyDb;
  readonly #schema: string;
  readonly #cipher: Cipher;
  readonly #registry: EventRegistry;
  readonly #clock: () => Date;
  readonly #repo: EventLogRepository;
  readonly #committer: GroupCommitter;
  readonly #replica: ReplicaHistory | undefined;

  constructor(opts: EventStoreOptions) {
    assertSchemaName(opts.schema);
    this.#db = opts.db;
    this.#schema = opts.schema;
    this.#cipher = opts.cipher;
    this.#registry = opts.registry;
    this.#clock = opts.clock ?? (() => new Date());
    this.#repo = new EventLogRepository(opts.schema);
    this.#committer = committerFor(opts.db, opts.schema);
    this.#replica = opts.replicaLog
      ? new ReplicaHistory(opts.db, opts.schema, opts.replicaLog, (row, data) =>
          this.#decodeOpened(row, data),
        )
      : undefined;
  }

  /**
   * Appends events to a stream and runs the projection, atomically: the events and the
   * read-model update commit together or not at all.
   *
   * Group commit: append() queues the request and one committer per schema and process (see
   * group-commit.ts) commits everything queued in one transaction; appends arriving meanwhile form
   * the next batch, so batches grow with the load while a lone writer still waits for just one
   * transaction. A batch of up to MAX_BATCH_APPENDS appends:
   *
   * 1. takes the advisory locks of all its streams in one statement, in ascending key order (the
   *    same order in every batch of every replica, so batches wait for each other, never deadlock);
   * 2. reads the streams' versions in a new statement (its snapshot holds every commit to them);
   * 3. per append, in arrival order: checks expectedVersion against the stream's version,
   *    counting appends accepted earlier in the batch (ConcurrencyError otherwise), encrypts, and
   *    runs the projection with the batch's transaction;
   * 4. takes the WAL lock, reads the head, inserts every accepted event with WAL numbers
   *    head+1.. and the hash chain, and COMMITs; then each append gets its own result.
   *
   * A projection that throws fails only its own append, with its error unchanged (a DomainError
   * reaches the caller as thrown). Projections rarely fail, so a batch first runs them without
   * savepoints (a savepoint costs two round trips per append); when one throws, the transaction
   * is rolled back and the batch runs again with a SAVEPOINT around each projection, rolled back
   * to on failure. A projection may therefore run more than once: only its effects in the
   * committed transaction remain, so it must act through the transaction alone.
   *
   * Why the WAL index is not a sequence: sequence values are handed out at INSERT time but become
   * visible at COMMIT time, so they commit out of order (tx A takes 7, tx B takes 8 and commits
   * first) and leave holes on rollback. A follower reading "wal > last seen" would then see 8,
   * move its cursor past 7, and skip 7 forever once A commits.
   *
   * Instead the index is assigned at the very end of the transaction under a per-schema
   * transaction-scoped advisory lock (pg_advisory_xact_lock): take the lock, read the head
   * (last wal + hash) in a new statement (so its snapshot includes every commit made before the
   * lock was granted), insert the events as head+1..head+n with the chained hashes, commit. The
   * lock is released only by COMMIT/ROLLBACK, so no other transaction (another replica's batch)
   * can read the head, let alone commit a smaller number, before this one is visible: WAL numbers
   * become visible in exactly increasing order. A rollback (failed projection, conflict, crash)
   * never took a number, so there are no gaps. The lock order is always stream locks, then the
   * WAL lock, so the WAL lock adds no deadlock either.
   *
   * Failures: a statement failing outside the savepoints (a lost connection, a deadlock with a
   * foreign writer, a unique violation from a writer that bypassed the stream lock) leaves nothing
   * committed; each append of the batch is then retried in a transaction of its own, so it fails
   * only the append it belongs to. If COMMIT itself fails its outcome is unknown, so every append
   * of the batch gets that error and nothing is retried (a retry could append twice).
   *
   * Durability: COMMIT is synchronous, so nothing is acknowledged, nor visible to any reader
   * (a follower, another replica), before it is on disk; the WAL lock is held through that one
   * fsync, which the whole batch shares. (Asynchronous commit with a flush after the lock, the
   * previous design, measured no faster once batched, and let readers see data not yet durable.)
   * bench/event-store-append.ts, 64 writers, pool 20, on a busy 2-core machine with ~4 ms fsync:
   * one transaction per append did 150-500 appends/s (370-400 with a one-row projection); group
   * commit does 2,300-6,700 (1,500-3,000 with the projection; 3,400 for two replicas), 64 appends
   * per transaction; a lone writer waits ~3 ms.
   *
   * A projection must use the transaction it is given, never `db`, and must not wait for another
   * append: the batch (every append of this schema in this process) waits for it.
   *
   * Round trips: a batch costs BEGIN, the stream locks, the versions, the WAL lock, the head, the
   * insert and COMMIT whatever its size, plus its projections: one statement per append, or one
   * for a run of neighbouring appends whose projection takes many at once (`projectMany`, e.g. a
   * kv version write). On a single-session database (PGlite) the locks guard nothing, and the
   * versions and the head come in one statement: BEGIN, versions+head, projections, insert, COMMIT.
   *
   * Chained appends (`link`, `after`): a writer may decide the next write of a stream on the state
   * an earlier append leaves before that one commits (a hot key's writers then share a batch
   * instead of taking one each); the later append commits only if the earlier did, in the same
   * batch or an earlier one, and fails with ConcurrencyError otherwise (even when its expected
   * version happens to match, since its decision rested on a state that never existed).
   */
  async append<T = undefined>(
    stream: string,
    events: NewEvent[],
    opts: AppendOptions<T>,
  ): Promise<AppendResult<T>> {
    if (stream === '') throw new Error('stream name must not be empty');
    if (this.#cipher.sealed) throw new DomainError('sealed', 'Vault is sealed');
    const encoded = events.map((e) => ({ type: e.type, version: e.version, data: this.#registry.encode(e) }));
    const result = await this.#committer.submit({
      stream,
      events: encoded,
      expectedVersion: opts.expectedVersion,
      project: opts.project,
      ...(opts.projectMany ? { projectMany: opts.projectMany } : {}),
      ...(opts.link ? { link: opts.link } : {}),
      ...(opts.after ? { after: opts.after } : {}),
      seal: (e) =>
        this.#cipher.encrypt(
          Buffer.from(JSON.stringify(e.data), 'utf8'),
          this.#aad(e.stream, e.streamVersion, e.type),
        ),
      clock: this.#clock,
      actor: actorOf(currentCaller()),
    });
    // the committer hands back what this append's own projection returned
    return result as AppendResult<T>;
  }

  /** Current version of a stream (0 when it has no events). */
  async streamVersion(stream: string): Promise<number> {
    return this.#repo.streamVersion(this.#db, stream);
  }

  /** A stream's events from `fromVersion` (default 1), decrypted and validated. */
  async readStream(stream: string, fromVersion = 1): Promise<StoredEvent[]> {
    const rows = await this.#repo.readStream(this.#db, stream, fromVersion);
    return rows.map((r) => this.#decode(r));
  }

  /**
   * A stream's state at an instant (history): its events recorded at or before `at`, folded by
   * `step` from `initial` in stream order; `wal` is the last event folded (0: none yet). With a
   * replica log (a secondary, or a cluster promoted from one) the primary's events of the stream
   * are folded too, at their own times (see historyOf).
   */
  async foldStreamAt<S>(
    stream: string,
    at: Date,
    initial: S,
    step: (state: S, event: StoredEvent) => S,
  ): Promise<{ state: S; wal: number }> {
    let state = initial;
    let wal = 0;
    for (const stored of await this.historyOf(stream, at)) {
      state = step(state, stored);
      wal = stored.wal;
    }
    return { state, wal };
  }

  /**
   * A stream's events recorded at or before `at`, in history order. With a replica log: the
   * primary's (its times, WAL indexes of the replica log) merged by time with the own log's,
   * whose events up to the version a promotion folded are left out (they are the fold's copies of
   * the primary's, stamped with the fold's time; a stream the cluster wrote itself between two
   * folds would shift that mapping, see docs/replication.md).
   */
  async historyOf(stream: string, at: Date): Promise<StoredEvent[]> {
    const own: StoredEvent[] = [];
    for (const stored of await this.readStream(stream)) {
      if (stored.recordedAt.getTime() > at.getTime()) break;
      own.push(stored);
    }
    if (!this.#replica) return own;
    const replicated = await this.#replica.streamAt(stream, at);
    if (replicated.length === 0) return own;
    const copies = (await this.#replica.foldedUnder(stream)).get(stream) ?? 0;
    return mergeByTime(
      replicated,
      own.filter((e) => e.streamVersion > copies),
    );
  }

  /**
   * Only the replica log's events of a stream recorded at or before `at` (the former primary's,
   * at their own times; none without a replica log): for a stream both clusters write, which the
   * caller folds its own way (core-sys's mount table).
   */
  async replicatedAt(stream: string, at: Date): Promise<StoredEvent[]> {
    return this.#replica ? this.#replica.streamAt(stream, at) : [];
  }

  /** The events of several streams up to event `maxWal` (one query), by stream then version. */
  async readStreamsTo(streams: readonly string[], maxWal: number): Promise<StoredEvent[]> {
    const rows = await this.#repo.readStreamsTo(this.#db, streams, maxWal);
    return rows.map((r) => this.#decode(r));
  }

  /**
   * The last event recorded at or before `at` (a time, or a WAL index of this log) of each stream
   * whose name starts with `prefix` (an engine's LIST at a time: which of its documents existed
   * then), by stream name.
   */
  async lastEventsOfPrefixAt(prefix: string, at: Date | number): Promise<StoredEvent[]> {
    const rows = await this.#repo.lastOfPrefixAt(this.#db, prefix, at);
    const own = rows.map((r) => this.#decode(r));
    // a WAL index is one of this log's: the replica log's rows have no place in it
    if (!this.#replica || typeof at === 'number') return own;
    const replicated = await this.#replica.lastOfPrefixAt(prefix, at);
    if (replicated.length === 0) return own;
    const folded = await this.#replica.foldedUnder(prefix);
    // per stream the later of the two logs' last events; the own log's fold copies never count
    const last = new Map<string, StoredEvent>();
    for (const e of replicated) last.set(e.stream, e);
    for (const e of own) {
      const other = last.get(e.stream);
      if (e.streamVersion <= (folded.get(e.stream) ?? 0)) continue;
      if (!other || other.recordedAt.getTime() <= e.recordedAt.getTime()) last.set(e.stream, e);
    }
    return [...last.values()].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  }

  /**
   * An engine's LIST at a time: the names (stream name past `prefix`, in stream order) of the
   * streams under `prefix` whose last event recorded at or before `at` says the document still
   * existed (`alive`); `wal` is the newest of those last events (0: none). `at` as in
   * lastEventsOfPrefixAt.
   */
  async namesAt(
    prefix: string,
    at: Date | number,
    alive: (last: StoredEvent) => boolean,
  ): Promise<{ names: string[]; wal: number }> {
    const names: string[] = [];
    let wal = 0;
    for (const stored of await this.lastEventsOfPrefixAt(prefix, at)) {
      wal = Math.max(wal, stored.wal);
      if (alive(stored)) names.push(stored.stream.slice(prefix.length));
    }
    return { names, wal };
  }

  /** The events at these WAL indexes (one batch, in WAL order), decrypted and validated. */
  async readWals(wals: readonly number[]): Promise<StoredEvent[]> {
    const rows = await this.#repo.atWals(this.#db, wals);
    return rows.map((r) => this.#decode(r));
  }

  /**
   * Up to `limit` events with wal > afterWal, in WAL order. Because WAL numbers become visible in
   * commit order without gaps, a follower that passes back the last wal it saw never skips one.
   * `via`: a transaction to read in (a rebuild of the read models reads the log in its own).
   */
  async readFrom(afterWal: number, limit = 1000, via?: AnyTrx): Promise<StoredEvent[]> {
    return (await this.readRawFrom(afterWal, limit, via)).map((r) => this.#decode(r));
  }

  /** As readFrom, with payloads still encrypted (shipping the log, verifying while sealed). */
  async readRawFrom(afterWal: number, limit = 1000, via?: AnyTrx): Promise<RawEvent[]> {
    const n = Math.max(1, Math.min(Math.trunc(limit), MAX_READ_LIMIT));
    return this.#repo.range(via ?? this.#db, afterWal + 1, Number.MAX_SAFE_INTEGER, n);
  }

  async head(): Promise<LogHead> {
    return this.#repo.head(this.#db);
  }

  /**
   * Recomputes the hash chain over wal fromWal..toWal (default: all) from the stored hash before
   * it, and checks the WAL index has no gaps. Works while sealed (it hashes ciphertexts).
   */
  async verifyChain(fromWal = 1, toWal = Number.MAX_SAFE_INTEGER): Promise<ChainVerification> {
    const start = Math.max(1, fromWal);
    let prevHash = start === 1 ? GENESIS_HASH : await this.#repo.hashAt(this.#db, start - 1);
    if (prevHash === undefined) return { ok: false, checked: 0, wal: start - 1, reason: 'gap' };
    let expected = start;
    let checked = 0;
    for (;;) {
      const rows = await this.#repo.range(this.#db, expected, toWal, VERIFY_BATCH);
      for (const row of rows) {
        if (row.wal !== expected) return { ok: false, checked, wal: expected, reason: 'gap' };
        const hash = chainHash(prevHash, row);
        if (hash !== row.hash) return { ok: false, checked, wal: row.wal, reason: 'hash_mismatch' };
        prevHash = hash;
        expected += 1;
        checked += 1;
      }
      if (rows.length < VERIFY_BATCH) break;
    }
    return { ok: true, checked, lastWal: expected - 1, hash: prevHash };
  }

  /** Binds each ciphertext to its place: a payload moved to another row no longer decrypts. */
  #aad(stream: string, streamVersion: number, type: string): Buffer {
    return Buffer.from(`${this.#schema}|${stream}|${streamVersion}|${type}`, 'utf8');
  }

  #decode(row: RawEvent): StoredEvent {
    const plaintext = this.#cipher.decrypt(row.payload, this.#aad(row.stream, row.streamVersion, row.type));
    return this.#decodeOpened(row, JSON.parse(plaintext.toString('utf8')));
  }

  /** A row whose payload was opened elsewhere (a replica log's, by the replication service). */
  #decodeOpened(row: RawEvent, json: unknown): StoredEvent {
    return {
      wal: row.wal,
      stream: row.stream,
      streamVersion: row.streamVersion,
      type: row.type,
      schemaVersion: row.schemaVersion,
      data: this.#registry.decode(row.type, row.schemaVersion, json),
      recordedAt: row.recordedAt,
      hash: row.hash,
    };
  }
}
