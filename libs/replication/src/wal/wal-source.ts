import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { EventRegistry, EventStore, type RawEvent, type ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME, REPLICATION_SCHEMA } from '../replication.di';
import type { SourceHead } from './merkle';

const SOURCES_TTL_MS = 5_000;

/**
 * The primary's side of the stream: every service's event log in this database (each schema
 * holding an `event_log` table, the replication service's own excepted: its state is the
 * cluster's own; and `<schema>_replica` logs, another cluster's rows a secondary kept beside a
 * service's own log, which are not this cluster's history). Rows are read as stored, payloads still barrier-encrypted.
 */
@Injectable()
export class WalSource {
  private readonly stores = new Map<string, EventStore>();
  private cached: { at: number; sources: string[] } | undefined;

  constructor(@Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** The schemas with an event log, sorted. */
  async sources(): Promise<string[]> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < SOURCES_TTL_MS) return this.cached.sources;
    const rows = await sql<{ schema: string }>`
      select table_schema as schema from information_schema.tables
       where table_name = 'event_log' and table_schema <> ${REPLICATION_SCHEMA}
         and table_schema not like '%\\_replica'
       order by table_schema`.execute(this.runtime.db);
    const sources = rows.rows.map((r) => r.schema);
    this.cached = { at: now, sources };
    return sources;
  }

  /** Every log's head. */
  async heads(): Promise<SourceHead[]> {
    const out: SourceHead[] = [];
    for (const source of await this.sources()) {
      const head = await this.store(source).head();
      out.push({ source, lastWal: head.lastWal, hash: head.hash });
    }
    return out;
  }

  /** Up to `limit` rows of `source` after `afterWal`, in WAL order. */
  read(source: string, afterWal: number, limit: number): Promise<RawEvent[]> {
    return this.store(source).readRawFrom(afterWal, limit);
  }

  private store(source: string): EventStore {
    let store = this.stores.get(source);
    if (!store) {
      // Raw reads only: nothing is decrypted or decoded, so no event types are needed.
      store = new EventStore({
        db: this.runtime.db,
        schema: source,
        cipher: this.runtime.cipher,
        registry: new EventRegistry([]),
      });
      this.stores.set(source, store);
    }
    return store;
  }
}
