import { sql } from 'kysely';
import { EVENT_LOG_TABLE, type EventLogKysely, type EventLogTable } from './event-log.table';
import { GENESIS_HASH } from './hash';
import type { AnyDb, AnyTrx, LogHead, RawEvent } from './event-store-types';

type Executor = AnyDb | AnyTrx;

const COLUMNS = [
  'wal',
  'stream',
  'stream_version',
  'type',
  'schema_version',
  'payload',
  'recorded_at',
  'hash',
] as const satisfies readonly (keyof EventLogTable)[];

/** what an insert writes: the row and its actor (reads leave the actor to the change feed) */
const INSERT_COLUMNS = [
  ...COLUMNS,
  'actor_accessor',
  'actor_entity_id',
  'request_id',
  'request_path',
] as const satisfies readonly (keyof EventLogTable)[];

const INSERT_CHUNK = 1000;

const toRaw = (r: Pick<EventLogTable, (typeof COLUMNS)[number]>): RawEvent => ({
  wal: r.wal,
  stream: r.stream,
  streamVersion: r.stream_version,
  type: r.type,
  schemaVersion: r.schema_version,
  payload: r.payload,
  recordedAt: r.recorded_at,
  hash: r.hash,
});

/** All SQL of the event log of one schema. */
export class EventLogRepository {
  readonly #schema: string;

  constructor(schema: string) {
    this.#schema = schema;
  }

  #q(db: Executor): EventLogKysely {
    return (db as unknown as EventLogKysely).withSchema(this.#schema);
  }

  /**
   * Serialises appends to one stream (two-int advisory key space: schema, stream), so the
   * expectedVersion check reads the committed head of the stream and `any` never conflicts.
   */
  async lockStream(trx: AnyTrx, stream: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${this.#schema}), hashtext(${stream}))`.execute(trx);
  }

  /**
   * The stream locks of a whole batch (same keys as lockStream), taken in ascending key order by
   * one statement: every batch, on every replica, acquires them in the same order, so two
   * batches sharing streams wait for each other instead of deadlocking. pg_advisory_xact_lock is
   * volatile, so Postgres evaluates it after the sort (the order is the evaluation order).
   */
  async lockStreams(trx: AnyTrx, streams: readonly string[]): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${this.#schema}), k)
                from (select distinct hashtext(s) as k from unnest(${[...streams]}::text[]) as s) as keys
               order by k`.execute(trx);
  }

  /** The per-schema WAL lock (one-bigint key space, disjoint from the stream locks). */
  async lockWal(trx: AnyTrx): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`coffer.event_log.wal:${this.#schema}`}, 0))`.execute(
      trx,
    );
  }

  async streamVersion(db: Executor, stream: string): Promise<number> {
    const row = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select((eb) => eb.fn.max('stream_version').as('version'))
      .where('stream', '=', stream)
      .executeTakeFirst();
    return row?.version ?? 0;
  }

  /** Current version of each of `streams` that has events (absent = 0). */
  async streamVersions(db: Executor, streams: readonly string[]): Promise<Map<string, number>> {
    if (streams.length === 0) return new Map();
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select((eb) => ['stream', eb.fn.max('stream_version').as('version')])
      .where('stream', 'in', [...streams])
      .groupBy('stream')
      .execute();
    return new Map(rows.map((r) => [r.stream, r.version]));
  }

  /**
   * streamVersions and head in one statement: for a single-session database, where nothing can
   * commit between the two reads (see GroupCommitter).
   */
  async streamVersionsAndHead(
    db: Executor,
    streams: readonly string[],
  ): Promise<{ versions: Map<string, number>; head: LogHead }> {
    const table = sql.table(`${this.#schema}.${EVENT_LOG_TABLE}`);
    const { rows } = await sql<{
      stream: string | null;
      version: number | null;
      wal: number | null;
      hash: string | null;
    }>`
      select stream, max(stream_version) as version, null::bigint as wal, null::text as hash
        from ${table} where stream = any(${[...streams]}::text[]) group by stream
      union all
      (select null, null, wal, hash from ${table} order by wal desc limit 1)`.execute(db);
    const versions = new Map<string, number>();
    let head: LogHead = { lastWal: 0, hash: GENESIS_HASH };
    for (const r of rows) {
      if (r.stream !== null) versions.set(r.stream, r.version ?? 0);
      else if (r.wal !== null && r.hash !== null) head = { lastWal: r.wal, hash: r.hash };
    }
    return { versions, head };
  }

  async head(db: Executor): Promise<LogHead> {
    const row = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select(['wal', 'hash'])
      .orderBy('wal', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { lastWal: row.wal, hash: row.hash } : { lastWal: 0, hash: GENESIS_HASH };
  }

  async hashAt(db: Executor, wal: number): Promise<string | undefined> {
    const row = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select('hash')
      .where('wal', '=', wal)
      .executeTakeFirst();
    return row?.hash;
  }

  /** Multi-row inserts of at most INSERT_CHUNK rows (a statement takes at most 65535 parameters). */
  async insert(trx: AnyTrx, rows: readonly EventLogTable[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await this.#q(trx).insertInto(EVENT_LOG_TABLE).columns(INSERT_COLUMNS).values(chunk).execute();
    }
  }

  /*
   * One savepoint name, reused: each is released (or rolled back to and released) before the
   * next is set, so they never nest.
   */
  async savepoint(trx: AnyTrx): Promise<void> {
    await sql`savepoint coffer_append`.execute(trx);
  }

  async releaseSavepoint(trx: AnyTrx): Promise<void> {
    await sql`release savepoint coffer_append`.execute(trx);
  }

  async rollbackToSavepoint(trx: AnyTrx): Promise<void> {
    await sql`rollback to savepoint coffer_append; release savepoint coffer_append`.execute(trx);
  }

  /** Every event of these streams up to `maxWal`, by stream then version. */
  async readStreamsTo(db: Executor, streams: readonly string[], maxWal: number): Promise<RawEvent[]> {
    if (streams.length === 0) return [];
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select(COLUMNS)
      .where('stream', 'in', [...streams])
      // `wal + 0` keeps the WAL primary key out of the plan: the stream index alone finds these
      // few events, but when a few streams hold most of the log the planner misjudges how few
      // and ANDs in a bitmap of every WAL below maxWal (13 ms for 3 token streams on 1M events)
      .where(sql<number>`wal + 0`, '<=', maxWal)
      .orderBy('stream')
      .orderBy('stream_version')
      .execute();
    return rows.map(toRaw);
  }

  /**
   * The last event recorded at or before `at` of every stream named `prefix...`, by stream, for
   * an engine's LISTs at a time. The name is compared in the "C" collation, so a log with an index
   * on `(stream collate "C")` (kv's, whose LISTs range over millions of events) reads only the
   * prefix's range; another log is scanned.
   */
  async lastOfPrefixAt(db: Executor, prefix: string, at: Date): Promise<RawEvent[]> {
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .distinctOn('stream')
      .select(COLUMNS)
      .where(sql<string>`(stream collate "C")`, 'like', `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
      .where('recorded_at', '<=', at)
      .orderBy('stream')
      .orderBy('stream_version', 'desc')
      .execute();
    return rows.map(toRaw);
  }

  async readStream(db: Executor, stream: string, fromVersion: number): Promise<RawEvent[]> {
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select(COLUMNS)
      .where('stream', '=', stream)
      .where('stream_version', '>=', fromVersion)
      .orderBy('stream_version')
      .execute();
    return rows.map(toRaw);
  }

  /** The rows at these WAL indexes, in WAL order (absent ones are left out). */
  async atWals(db: Executor, wals: readonly number[]): Promise<RawEvent[]> {
    if (wals.length === 0) return [];
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select(COLUMNS)
      .where('wal', 'in', [...wals])
      .orderBy('wal')
      .execute();
    return rows.map(toRaw);
  }

  /** Rows with fromWal <= wal <= toWal in WAL order. */
  async range(db: Executor, fromWal: number, toWal: number, limit: number): Promise<RawEvent[]> {
    const rows = await this.#q(db)
      .selectFrom(EVENT_LOG_TABLE)
      .select(COLUMNS)
      .where('wal', '>=', fromWal)
      .where('wal', '<=', toWal)
      .orderBy('wal')
      .limit(limit)
      .execute();
    return rows.map(toRaw);
  }
}
