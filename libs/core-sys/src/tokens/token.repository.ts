import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import { rowToToken, TOKEN_COLUMNS, tokenToRow, type VersionedToken } from './token.table';
import type { TokenState } from './token.decider';

/** All SQL of the token read model. */
@Injectable()
export class TokenRepository {
  constructor(private readonly db: CoreSysDb) {}

  async byHash(tokenHash: string): Promise<VersionedToken | undefined> {
    const row = await this.db
      .of()
      .selectFrom('tokens')
      .select(TOKEN_COLUMNS)
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && rowToToken(row);
  }

  async byAccessor(accessor: string, trx?: CoreSysTrx): Promise<VersionedToken | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('tokens')
      .select(TOKEN_COLUMNS)
      .where('accessor', '=', accessor)
      .executeTakeFirst();
    return row && rowToToken(row);
  }

  async existsByHash(tokenHash: string): Promise<boolean> {
    const row = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The token and every descendant, as (accessor, parent) edges. */
  async tree(accessor: string): Promise<{ accessor: string; parentAccessor: string | null }[]> {
    const table = sql.table(`${this.db.schema}.tokens`);
    const { rows } = await sql<{ accessor: string; parent_accessor: string | null }>`
      with recursive tree(accessor, parent_accessor) as (
        select accessor, parent_accessor from ${table} where accessor = ${accessor}
        union
        select t.accessor, t.parent_accessor from ${table} t join tree on t.parent_accessor = tree.accessor
      )
      select accessor, parent_accessor from tree`.execute(this.db.pool);
    return rows.map((r) => ({ accessor: r.accessor, parentAccessor: r.parent_accessor }));
  }

  async childrenOf(accessor: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('parent_accessor', '=', accessor)
      .execute();
    return rows.map((r) => r.accessor);
  }

  /** The accessors of a namespace's tokens and its children's ("" = every token). */
  async allAccessors(namespace = ''): Promise<string[]> {
    const escaped = namespace.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('namespace', 'like', `${escaped}%`)
      .orderBy('accessor')
      .execute();
    return rows.map((r) => r.accessor);
  }

  /** Which of these refs belong to tokens that still exist (exhausted ones included: their last request may still run). */
  async existingRefs(refs: readonly string[]): Promise<string[]> {
    if (refs.length === 0) return [];
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('token_ref')
      .where('token_ref', 'in', [...refs])
      .execute();
    return rows.map((r) => r.token_ref);
  }

  async expired(nowMs: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('expires_at', '>', 0)
      .where('expires_at', '<=', nowMs)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.accessor);
  }

  async exhaustedBefore(cutoffMs: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('exhausted_at', 'is not', null)
      .where('exhausted_at', '<=', cutoffMs)
      .orderBy('exhausted_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.accessor);
  }

  /** Tokens whose parent no longer exists (a revocation that stopped half-way, or a create racing one). */
  async dangling(limit: number): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('tokens as c')
      .leftJoin('tokens as p', 'p.accessor', 'c.parent_accessor')
      .select('c.accessor')
      .where('c.parent_accessor', 'is not', null)
      .where('p.accessor', 'is', null)
      .limit(limit)
      .execute();
    return rows.map((r) => r.accessor);
  }

  /** Accessors of the tokens created under a path prefix (e.g. every login of an auth mount). */
  async byPathPrefix(prefix: string, namespace = ''): Promise<string[]> {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('path', 'like', `${escaped}%`)
      .where('namespace', '=', namespace)
      .execute();
    return rows.map((r) => r.accessor);
  }

  /** Every live token of a namespace (deleting it revokes them). */
  async byNamespace(namespace: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('tokens')
      .select('accessor')
      .where('namespace', '=', namespace)
      .execute();
    return rows.map((r) => r.accessor);
  }

  // --- projection writes (inside the append transaction) ---

  async insert(trx: CoreSysTrx, state: TokenState, version: number): Promise<void> {
    await this.db.of(trx).insertInto('tokens').values(tokenToRow(state, version)).execute();
  }

  async update(trx: CoreSysTrx, state: TokenState, version: number): Promise<void> {
    const { accessor: _accessor, ...row } = tokenToRow(state, version);
    await this.db.of(trx).updateTable('tokens').set(row).where('accessor', '=', state.accessor).execute();
  }

  async delete(trx: CoreSysTrx, accessor: string): Promise<void> {
    await this.db.of(trx).deleteFrom('tokens').where('accessor', '=', accessor).execute();
  }
}
