import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb } from '../core-sys.table';

export interface SealRow {
  secretShares: number;
  secretThreshold: number;
  keyring: Buffer;
  rootKey: Buffer;
  activeTerm: number;
  clusterName: string;
  clusterId: string;
}

/** The single seal_config row (below the barrier: plain table, encrypted columns). */
@Injectable()
export class SealRepository {
  constructor(private readonly db: CoreSysDb) {}

  async load(): Promise<SealRow | undefined> {
    const row = await this.db
      .of()
      .selectFrom('seal_config')
      .select([
        'secret_shares',
        'secret_threshold',
        'keyring',
        'root_key',
        'active_term',
        'cluster_name',
        'cluster_id',
      ])
      .where('id', '=', 1)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      secretShares: row.secret_shares,
      secretThreshold: row.secret_threshold,
      keyring: Buffer.from(row.keyring),
      rootKey: Buffer.from(row.root_key),
      activeTerm: row.active_term,
      clusterName: row.cluster_name,
      clusterId: row.cluster_id,
    };
  }

  async isInitialized(): Promise<boolean> {
    const row = await this.db
      .of()
      .selectFrom('seal_config')
      .select('id')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Inserts the configuration; false when another init won the race. */
  async insert(row: SealRow, now: Date): Promise<boolean> {
    const result = await this.db
      .of()
      .insertInto('seal_config')
      .values({
        id: 1,
        secret_shares: row.secretShares,
        secret_threshold: row.secretThreshold,
        keyring: row.keyring,
        root_key: row.rootKey,
        active_term: row.activeTerm,
        cluster_name: row.clusterName,
        cluster_id: row.clusterId,
        initialized_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Stores a rotated keyring; only moves forward, so a stale writer cannot roll it back. */
  async updateKeyring(keyring: Buffer, activeTerm: number, now: Date): Promise<boolean> {
    const result = await this.db
      .of()
      .updateTable('seal_config')
      .set({ keyring, active_term: activeTerm, updated_at: now })
      .where('id', '=', 1)
      .where('active_term', '<', activeTerm)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** "postgresql", or "pglite" for the embedded dev database (reported as storage_type). */
  async storageType(): Promise<'postgresql' | 'pglite'> {
    const { rows } = await sql<{ v: string }>`select version() as v`.execute(this.db.pool);
    return /emscripten/i.test(rows[0]?.v ?? '') ? 'pglite' : 'postgresql';
  }
}
