import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb } from '../core-sys.table';
import type { HistoryTokensTable } from './history.table';

const POLICY_STREAMS = 'policy/acl/%';
const TOKEN_STREAMS = 'token/%';
const INSERT_CHUNK = 500;

/** A token event the index keeps: its creation (decrypted by the caller) or its revocation. */
export interface TokenEventRef {
  wal: number;
  stream: string;
  type: 'TokenCreated' | 'TokenRevoked';
}

/** A policy stream's last event at an instant. */
export interface PolicyVersionRef {
  stream: string;
  wal: number;
  written: boolean;
}

/**
 * All SQL of the access index (history_index_heads, history_policy_versions,
 * history_policy_streams, history_tokens). Writes are idempotent: the index is a function of the
 * log, so two replicas (or a sweep and a query) indexing the same range write the same rows.
 */
@Injectable()
export class HistoryAccessIndexRepository {
  constructor(private readonly db: CoreSysDb) {}

  private table(name: string) {
    return sql.table(`${this.db.schema}.${name}`);
  }

  async head(log: string): Promise<number> {
    const row = await this.db
      .of()
      .selectFrom('history_index_heads')
      .select('wal')
      .where('log', '=', log)
      .executeTakeFirst();
    return row?.wal ?? 0;
  }

  /** Moves the head forward only (a slower indexer finishing late never moves it back). */
  async advance(log: string, wal: number): Promise<void> {
    await this.db
      .of()
      .insertInto('history_index_heads')
      .values({ log, wal })
      .onConflict((oc) =>
        oc.column('log').doUpdateSet({ wal: sql<number>`greatest(history_index_heads.wal, excluded.wal)` }),
      )
      .execute();
  }

  /** Indexes the policy events of wal fromWal..toWal: types and stream names only, nothing decrypted. */
  async indexPolicies(fromWal: number, toWal: number): Promise<void> {
    await sql`insert into ${this.table('history_policy_versions')} (stream, wal, written)
              select stream, wal, type = 'PolicyWritten' from ${this.table('event_log')}
               where wal >= ${fromWal} and wal <= ${toWal} and stream like ${POLICY_STREAMS}
              on conflict do nothing`.execute(this.db.pool);
    await sql`insert into ${this.table('history_policy_streams')} (stream)
              select distinct stream from ${this.table('event_log')}
               where wal >= ${fromWal} and wal <= ${toWal} and stream like ${POLICY_STREAMS}
              on conflict do nothing`.execute(this.db.pool);
  }

  /** The creations and revocations of tokens in wal fromWal..toWal, in WAL order. */
  async tokenEvents(fromWal: number, toWal: number): Promise<TokenEventRef[]> {
    const rows = await sql<TokenEventRef>`
      select wal, stream, type from ${this.table('event_log')}
       where wal >= ${fromWal} and wal <= ${toWal} and stream like ${TOKEN_STREAMS}
         and type in ('TokenCreated', 'TokenRevoked')
       order by wal`.execute(this.db.pool);
    return rows.rows.map((r) => ({ ...r, wal: Number(r.wal) }));
  }

  async insertTokens(rows: HistoryTokensTable[]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await this.db
        .of()
        .insertInto('history_tokens')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.column('stream').doNothing())
        .execute();
    }
  }

  async revokeToken(stream: string, wal: number): Promise<void> {
    await this.db
      .of()
      .updateTable('history_tokens')
      .set({ revoked_wal: wal })
      .where('stream', '=', stream)
      .execute();
  }

  /** The tokens whose streams held a token at event `wal`, ordered by stream. */
  async liveTokens(wal: number): Promise<HistoryTokensTable[]> {
    return this.db
      .of()
      .selectFrom('history_tokens')
      .selectAll()
      .where('created_wal', '<=', wal)
      .where((eb) => eb.or([eb('revoked_wal', 'is', null), eb('revoked_wal', '>', wal)]))
      .orderBy('stream')
      .execute();
  }

  /** Each policy stream's last event at or before `wal` (streams with none are left out). */
  async policyVersionsAt(streams: readonly string[], wal: number): Promise<PolicyVersionRef[]> {
    if (streams.length === 0) return [];
    const rows = await sql<PolicyVersionRef>`
      select s.stream, v.wal, v.written
        from (values ${sql.join(streams.map((s) => sql`(${s})`))}) as s(stream)
        cross join lateral (
          select wal, written from ${this.table('history_policy_versions')} p
           where p.stream = s.stream and p.wal <= ${wal}
           order by p.wal desc limit 1) v`.execute(this.db.pool);
    return rows.rows.map((r) => ({ ...r, wal: Number(r.wal) }));
  }

  /** The policy streams named `prefix...` that held a policy at event `wal`. */
  async writtenStreamsAt(prefix: string, wal: number): Promise<string[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await sql<{ stream: string }>`
      select s.stream from ${this.table('history_policy_streams')} s
       cross join lateral (
         select written from ${this.table('history_policy_versions')} p
          where p.stream = s.stream and p.wal <= ${wal}
          order by p.wal desc limit 1) v
       where s.stream like ${pattern} and v.written`.execute(this.db.pool);
    return rows.rows.map((r) => r.stream);
  }
}
