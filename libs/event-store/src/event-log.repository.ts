import { sql } from 'kysely';
import { EVENT_LOG_TABLE, type EventLogKysely, type EventLogTable } from './event-log.table';
import { GENESIS_HASH } from './hash';
import type { AnyDb, AnyTrx, LogHead, RawEvent } from './types';

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

const toRaw = (r: EventLogTable): RawEvent => ({
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

  async insert(trx: AnyTrx, rows: EventLogTable[]): Promise<void> {
    await this.#q(trx).insertInto(EVENT_LOG_TABLE).columns(COLUMNS).values(rows).execute();
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
