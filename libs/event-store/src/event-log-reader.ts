import { sql } from 'kysely';
import { EVENT_LOG_TABLE, type EventLogKysely } from './event-log.table';
import { GENESIS_HASH } from './hash';
import { assertSchemaName } from './migrate';
import type { AnyDb, LogHead, RawEvent } from './event-store-types';

/** An event as stored, with the chain hash before it: what an inclusion proof shows a client. */
export interface ChainedRawEvent extends RawEvent {
  prevHash: string;
}

/** One row of the change feed: an event's place and its actor, never its payload. */
export interface ChangeRow {
  wal: number;
  stream: string;
  type: string;
  recordedAt: Date;
  accessor: string | null;
  entityId: string | null;
  requestId: string | null;
  path: string | null;
}

export interface ChangeQuery {
  /** events with afterWal < wal <= toWal */
  afterWal: number;
  toWal: number;
  /** only events caused by a request on a path starting with this ("" = every event) */
  pathPrefix: string;
  limit: number;
}

/**
 * Read-only access to any service's event log in this database, by schema: the history service
 * (proofs over every log) reads them through this instead of SQL of its own. Only the columns a
 * caller asks for are read: the Merkle indexer reads (wal, hash) of a million rows, never payloads.
 */
export class EventLogReader {
  constructor(private readonly db: AnyDb) {}

  #q(schema: string): EventLogKysely {
    assertSchemaName(schema);
    return (this.db as unknown as EventLogKysely).withSchema(schema);
  }

  /** The schemas holding an event log, sorted. */
  async schemas(): Promise<string[]> {
    const rows = await sql<{ schema: string }>`
      select table_schema as schema from information_schema.tables
       where table_name = ${EVENT_LOG_TABLE} order by table_schema`.execute(this.db);
    return rows.rows.map((r) => r.schema);
  }

  async head(schema: string): Promise<LogHead> {
    const row = await this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select(['wal', 'hash'])
      .orderBy('wal', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { lastWal: row.wal, hash: row.hash } : { lastWal: 0, hash: GENESIS_HASH };
  }

  /** (wal, hash) of fromWal <= wal <= toWal, in WAL order, at most `limit` rows. */
  async hashes(
    schema: string,
    fromWal: number,
    toWal: number,
    limit: number,
  ): Promise<{ wal: number; hash: string }[]> {
    return this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select(['wal', 'hash'])
      .where('wal', '>=', fromWal)
      .where('wal', '<=', toWal)
      .orderBy('wal')
      .limit(limit)
      .execute();
  }

  /** One event as stored and the chain hash before it (undefined when there is no such wal). */
  async chained(schema: string, wal: number): Promise<ChainedRawEvent | undefined> {
    const rows = await this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select(['wal', 'stream', 'stream_version', 'type', 'schema_version', 'payload', 'recorded_at', 'hash'])
      .where('wal', '>=', wal - 1)
      .where('wal', '<=', wal)
      .orderBy('wal')
      .execute();
    const row = rows.find((r) => r.wal === wal);
    if (!row) return undefined;
    const prevHash = wal === 1 ? GENESIS_HASH : rows.find((r) => r.wal === wal - 1)?.hash;
    if (prevHash === undefined) return undefined;
    return {
      wal: row.wal,
      stream: row.stream,
      streamVersion: row.stream_version,
      type: row.type,
      schemaVersion: row.schema_version,
      payload: row.payload,
      recordedAt: row.recorded_at,
      hash: row.hash,
      prevHash,
    };
  }

  /** Who changed what (the change feed): the events of `query`, in WAL order, without payloads. */
  async changes(schema: string, query: ChangeQuery): Promise<ChangeRow[]> {
    let q = this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select([
        'wal',
        'stream',
        'type',
        'recorded_at',
        'actor_accessor',
        'actor_entity_id',
        'request_id',
        'request_path',
      ])
      .where('wal', '>', query.afterWal)
      .where('wal', '<=', query.toWal);
    if (query.pathPrefix !== '') {
      const pattern = `${query.pathPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where('request_path', 'like', pattern);
    }
    const rows = await q.orderBy('wal').limit(query.limit).execute();
    return rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      type: r.type,
      recordedAt: r.recorded_at,
      accessor: r.actor_accessor,
      entityId: r.actor_entity_id,
      requestId: r.request_id,
      path: r.request_path,
    }));
  }

  /** When event `wal` was recorded (undefined past the head). */
  async recordedAt(schema: string, wal: number): Promise<Date | undefined> {
    const row = await this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select('recorded_at')
      .where('wal', '=', wal)
      .executeTakeFirst();
    return row?.recorded_at;
  }

  /** A stream's version as of event `maxWal` (0 = not written by then). */
  async streamVersionAt(schema: string, stream: string, maxWal: number): Promise<number> {
    const row = await this.#q(schema)
      .selectFrom(EVENT_LOG_TABLE)
      .select((eb) => eb.fn.max('stream_version').as('version'))
      .where('stream', '=', stream)
      .where('wal', '<=', maxWal)
      .executeTakeFirst();
    return row?.version ?? 0;
  }

  /**
   * The last event type of every stream named `prefix...` as of event `maxWal` (e.g. which
   * policies existed then: the last event of each is "Written" or "Deleted"); nothing decrypted.
   */
  async lastTypes(
    schema: string,
    prefix: string,
    maxWal: number,
  ): Promise<{ stream: string; type: string }[]> {
    assertSchemaName(schema);
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await sql<{ stream: string; type: string }>`
      select distinct on (stream) stream, type from ${sql.table(`${schema}.${EVENT_LOG_TABLE}`)}
       where stream like ${pattern} and wal <= ${maxWal}
       order by stream, stream_version desc`.execute(this.db);
    return rows.rows;
  }
}
