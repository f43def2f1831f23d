import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb } from '../core-sys.table';
import type { HistoryTokensTable } from './history.table';

const POLICY_STREAMS = 'policy/acl/%';
const TOKEN_STREAMS = 'token/%';
const INSERT_CHUNK = 500;
/** from this many policies on, their versions come from one stabbing query rather than a lookup each */
const SPAN_QUERY_FROM = 32;

/** A token event the index keeps: its creation (decrypted by the caller) or its revocation. */
export interface TokenEventRef {
  wal: number;
  stream: string;
  type: 'TokenCreated' | 'TokenRevoked';
}

/** A written policy version: the event that wrote it. */
export interface PolicyVersionWal {
  stream: string;
  wal: number;
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

  /**
   * Indexes the policy events of wal fromWal..toWal: types and stream names only, nothing
   * decrypted. Each version's span ends at its stream's next event: within the range by `lead`;
   * across ranges, each stream's version before its first event of the range is ended there
   * (when its end is unset or later: a pass over a later range may have ended it first), and
   * versions left open with a later version indexed are ended at it (a pass racing this one may
   * have inserted either side). Whichever of two racing passes runs these last sees both rows.
   */
  async indexPolicies(fromWal: number, toWal: number): Promise<void> {
    const versions = this.table('history_policy_versions');
    const firsts = sql`select stream, min(wal) as wal from ${this.table('event_log')}
                        where wal >= ${fromWal} and wal <= ${toWal} and stream like ${POLICY_STREAMS}
                        group by stream`;
    await sql`insert into ${versions} (stream, wal, written, next_wal)
              select stream, wal, type = 'PolicyWritten', lead(wal) over (partition by stream order by wal)
                from ${this.table('event_log')}
               where wal >= ${fromWal} and wal <= ${toWal} and stream like ${POLICY_STREAMS}
              on conflict do nothing`.execute(this.db.pool);
    await sql`update ${versions} p set next_wal = f.wal
                from (${firsts}) f
               where p.stream = f.stream
                 and p.wal = (select max(v.wal) from ${versions} v where v.stream = f.stream and v.wal < f.wal)
                 and (p.next_wal is null or p.next_wal > f.wal)`.execute(this.db.pool);
    await sql`update ${versions} p
                 set next_wal = (select min(n.wal) from ${versions} n where n.stream = p.stream and n.wal > p.wal)
               where p.next_wal is null
                 and p.stream in (select stream from (${firsts}) f)
                 and exists (select 1 from ${versions} n where n.stream = p.stream and n.wal > p.wal)`.execute(
      this.db.pool,
    );
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

  /**
   * Each policy stream's last event at or before `wal` (streams with none are left out). Many
   * streams: one GiST stabbing query over the versions' spans (it reads every policy's version
   * at `wal`, ~4 ms for 2,000); a few: one indexed lookup each.
   */
  async policyVersionsAt(streams: readonly string[], wal: number): Promise<PolicyVersionRef[]> {
    if (streams.length === 0) return [];
    if (streams.length >= SPAN_QUERY_FROM) {
      // every policy's version at `wal`, filtered here: `stream = any(...)` in SQL tempts the
      // planner into ANDing the primary key's bitmap of every version of those streams
      const wanted = new Set(streams);
      const rows = await this.spansAt(wal).execute(this.db.pool);
      return rows.rows.filter((r) => wanted.has(r.stream)).map((r) => ({ ...r, wal: Number(r.wal) }));
    }
    const rows = await sql<PolicyVersionRef>`
      select s.stream, v.wal, v.written
        from (values ${sql.join(streams.map((s) => sql`(${s})`))}) as s(stream)
        cross join lateral (
          select wal, written from ${this.table('history_policy_versions')} p
           where p.stream = s.stream and p.wal <= ${wal}
           order by p.wal desc limit 1) v`.execute(this.db.pool);
    return rows.rows.map((r) => ({ ...r, wal: Number(r.wal) }));
  }

  /**
   * The `limit` written policy versions a question is likeliest to need, likeliest first: those
   * current at the head (the questions about now), then the longest-lived (a question about a
   * uniformly random instant meets a version with the odds of its span), newer first among
   * equals. One sort of the versions table (top-N): run once per process, in the background.
   */
  async versionsLikeliestNeeded(limit: number): Promise<PolicyVersionWal[]> {
    const rows = await sql<PolicyVersionWal>`
      select stream, wal from ${this.table('history_policy_versions')}
       where written
       order by next_wal is null desc, coalesce(next_wal, 0) - wal desc, wal desc
       limit ${limit}`.execute(this.db.pool);
    return rows.rows.map((r) => ({ stream: r.stream, wal: Number(r.wal) }));
  }

  /** The written versions current at the head that began after event `wal`, newest first (the open-span index). */
  async currentVersionsSince(wal: number, limit: number): Promise<PolicyVersionWal[]> {
    const rows = await sql<PolicyVersionWal>`
      select stream, wal from ${this.table('history_policy_versions')}
       where next_wal is null and written and wal > ${wal}
       order by wal desc
       limit ${limit}`.execute(this.db.pool);
    return rows.rows.map((r) => ({ stream: r.stream, wal: Number(r.wal) }));
  }

  /** The policy streams named `prefix...` that held a policy at event `wal` (one stabbing query). */
  async writtenStreamsAt(prefix: string, wal: number): Promise<string[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await sql<{ stream: string }>`
      select stream from (${this.spansAt(wal)}) v where written and stream like ${pattern}`.execute(
      this.db.pool,
    );
    return rows.rows.map((r) => r.stream);
  }

  /** Every policy stream's version at event `wal`: the closed span holding it, or the open one begun by then. */
  private spansAt(wal: number) {
    return sql<PolicyVersionRef>`select stream, wal, written from ${this.table('history_policy_versions')}
                where int8range(wal, next_wal) @> ${wal}::int8 and next_wal is not null
               union all
               select stream, wal, written from ${this.table('history_policy_versions')}
                where next_wal is null and wal <= ${wal}`;
  }
}
