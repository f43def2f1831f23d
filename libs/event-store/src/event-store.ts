import { sql } from 'kysely';
import { DomainError } from '@coffer/contracts';
import type { Cipher } from '@coffer/barrier';
import { ConcurrencyError } from './concurrency';
import { EventLogRepository } from './event-log.repository';
import { STREAM_VERSION_CONSTRAINT, type EventLogTable } from './event-log.table';
import { chainHash, GENESIS_HASH } from './hash';
import { assertSchemaName } from './migrate';
import type { EventRegistry } from './registry';
import type {
  AnyDb,
  AppendedEvent,
  AppendOptions,
  AppendResult,
  ChainVerification,
  LogHead,
  NewEvent,
  RawEvent,
  StoredEvent,
} from './types';

export interface EventStoreOptions {
  db: AnyDb;
  /** the service's schema (created by migrateSchema) */
  schema: string;
  cipher: Cipher;
  registry: EventRegistry;
  /** recordedAt of appended events; default wall clock */
  clock?: () => Date;
}

const MAX_READ_LIMIT = 10_000;
const VERIFY_BATCH = 1_000;

function isStreamVersionConflict(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && e.constraint === STREAM_VERSION_CONSTRAINT;
}

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

  constructor(opts: EventStoreOptions) {
    assertSchemaName(opts.schema);
    this.#db = opts.db;
    this.#schema = opts.schema;
    this.#cipher = opts.cipher;
    this.#registry = opts.registry;
    this.#clock = opts.clock ?? (() => new Date());
    this.#repo = new EventLogRepository(opts.schema);
  }

  /**
   * Appends events to a stream and runs the projection, in one transaction.
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
   * lock is released only by COMMIT/ROLLBACK, so no other transaction can read the head, let
   * alone commit a smaller number, before this one is visible: WAL numbers become visible in
   * exactly increasing order. A rollback (projection error, conflict, crash) never took a
   * number, so there are no gaps.
   *
   * Throughput: the lock serialises commits per schema, so everything that can run before it
   * does (version check, encryption, the read-model projection); the critical section is the
   * head read, one multi-row INSERT and the COMMIT. Holding the lock across the commit's WAL
   * fsync would cap a schema at one flush per append (a few hundred per second on ordinary
   * disks), so the transaction commits with synchronous_commit off (the lock is released as soon
   * as the commit record is in the WAL buffers) and append() then waits for durability outside
   * the lock with `durableFlush()`: a tiny transaction whose synchronous commit flushes the WAL
   * up to its own, later, commit record, and so also ours. Concurrent writers' flushes are merged
   * by Postgres (group commit), and nothing is acknowledged before it is on disk.
   */
  async append<T = undefined>(
    stream: string,
    events: NewEvent[],
    opts: AppendOptions<T>,
  ): Promise<AppendResult<T>> {
    if (stream === '') throw new Error('stream name must not be empty');
    if (this.#cipher.sealed) throw new DomainError('sealed', 'Vault is sealed');
    const validated = events.map((e) => ({ event: e, data: this.#registry.encode(e) }));

    const result = await this.#db.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit TO off`.execute(trx);
      await this.#repo.lockStream(trx, stream);
      const current = await this.#repo.streamVersion(trx, stream);
      if (opts.expectedVersion !== 'any' && opts.expectedVersion !== current) {
        throw new ConcurrencyError(stream, opts.expectedVersion, current);
      }

      const recordedAt = this.#clock();
      const appended: AppendedEvent[] = validated.map(({ event, data }, i) => ({
        stream,
        streamVersion: current + i + 1,
        type: event.type,
        schemaVersion: event.version,
        data,
        recordedAt,
      }));
      const payloads = appended.map((e) =>
        this.#cipher.encrypt(
          Buffer.from(JSON.stringify(e.data), 'utf8'),
          this.#aad(e.stream, e.streamVersion, e.type),
        ),
      );

      const projected = (opts.project ? await opts.project(trx, appended) : undefined) as T;

      if (appended.length === 0) {
        return { events: [], version: current, lastWal: (await this.#repo.head(trx)).lastWal, projected };
      }

      // ---- critical section: held until COMMIT ----
      await this.#repo.lockWal(trx);
      const head = await this.#repo.head(trx);
      let prevHash = head.hash;
      const rows: EventLogTable[] = appended.map((e, i) => {
        const payload = payloads[i] as Buffer;
        const wal = head.lastWal + i + 1;
        const hash = chainHash(prevHash, { ...e, wal, payload });
        prevHash = hash;
        return {
          wal,
          stream,
          stream_version: e.streamVersion,
          type: e.type,
          schema_version: e.schemaVersion,
          payload,
          recorded_at: recordedAt,
          hash,
        };
      });
      try {
        await this.#repo.insert(trx, rows);
      } catch (error) {
        // only reachable by a writer that bypassed the stream lock; same meaning for the caller
        if (isStreamVersionConflict(error))
          throw new ConcurrencyError(stream, opts.expectedVersion, undefined);
        throw error;
      }
      const stored: StoredEvent[] = appended.map((e, i) => {
        const row = rows[i] as EventLogTable;
        return { ...e, wal: row.wal, hash: row.hash };
      });
      const last = rows[rows.length - 1] as EventLogTable;
      return { events: stored, version: last.stream_version, lastWal: last.wal, projected };
    });
    if (result.events.length > 0) await this.#durableFlush();
    return result;
  }

  /** Waits until the WAL is flushed past every commit made so far (see append). */
  async #durableFlush(): Promise<void> {
    // pg_current_xact_id() assigns a transaction id, so this statement's implicit transaction
    // writes a commit record and, with the session's synchronous_commit on, flushes up to it.
    await sql`SELECT pg_current_xact_id()`.execute(this.#db);
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
   * Up to `limit` events with wal > afterWal, in WAL order. Because WAL numbers become visible in
   * commit order without gaps, a follower that passes back the last wal it saw never skips one.
   */
  async readFrom(afterWal: number, limit = 1000): Promise<StoredEvent[]> {
    return (await this.readRawFrom(afterWal, limit)).map((r) => this.#decode(r));
  }

  /** As readFrom, with payloads still encrypted (shipping the log, verifying while sealed). */
  async readRawFrom(afterWal: number, limit = 1000): Promise<RawEvent[]> {
    const n = Math.max(1, Math.min(Math.trunc(limit), MAX_READ_LIMIT));
    return this.#repo.range(this.#db, afterWal + 1, Number.MAX_SAFE_INTEGER, n);
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
    const json: unknown = JSON.parse(plaintext.toString('utf8'));
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
