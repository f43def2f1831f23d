import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { subtreeKey, type SubtreeRef } from '@coffer/event-store';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';

const INSERT_CHUNK = 1000;

export interface MerkleHeadRow {
  size: number;
  frontier: Buffer;
}

/** All SQL of the Merkle index (history_merkle_nodes / history_merkle_heads). */
@Injectable()
export class MerkleIndexRepository {
  constructor(private readonly db: CoreSysDb) {}

  async head(log: string, trx?: CoreSysTrx): Promise<MerkleHeadRow | undefined> {
    return this.db
      .of(trx)
      .selectFrom('history_merkle_heads')
      .select(['size', 'frontier'])
      .where('log', '=', log)
      .executeTakeFirst();
  }

  transaction<T>(fn: (trx: CoreSysTrx) => Promise<T>): Promise<T> {
    return this.db.pool.transaction().execute(fn);
  }

  /**
   * Moves the head from `fromSize` to `size`; false when another replica moved it first (its
   * nodes are the same, the tree being a function of the log).
   */
  async advance(
    trx: CoreSysTrx,
    log: string,
    fromSize: number,
    size: number,
    frontier: Buffer,
    at: Date,
  ): Promise<boolean> {
    if (fromSize === 0) {
      const inserted = await this.db
        .of(trx)
        .insertInto('history_merkle_heads')
        .values({ log, size, frontier, updated_at: at })
        .onConflict((oc) => oc.column('log').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    }
    const updated = await this.db
      .of(trx)
      .updateTable('history_merkle_heads')
      .set({ size, frontier, updated_at: at })
      .where('log', '=', log)
      .where('size', '=', fromSize)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  async insertNodes(
    trx: CoreSysTrx,
    log: string,
    nodes: readonly { ref: SubtreeRef; hash: Buffer }[],
  ): Promise<void> {
    for (let i = 0; i < nodes.length; i += INSERT_CHUNK) {
      const chunk = nodes.slice(i, i + INSERT_CHUNK);
      await this.db
        .of(trx)
        .insertInto('history_merkle_nodes')
        .values(chunk.map((n) => ({ log, level: n.ref.level, idx: n.ref.index, hash: n.hash })))
        .onConflict((oc) => oc.columns(['log', 'level', 'idx']).doNothing())
        .execute();
    }
  }

  /** The stored perfect subtrees among `refs`, by subtreeKey. */
  async nodes(log: string, refs: readonly SubtreeRef[]): Promise<Map<string, Buffer>> {
    if (refs.length === 0) return new Map();
    const levels = refs.map((r) => r.level);
    const indexes = refs.map((r) => r.index);
    const rows = await this.db
      .of()
      .selectFrom('history_merkle_nodes')
      .select(['level', 'idx', 'hash'])
      .where('log', '=', log)
      .where(sql<boolean>`(level, idx) in (select * from unnest(${levels}::int2[], ${indexes}::int8[]))`)
      .execute();
    return new Map(rows.map((r) => [subtreeKey({ level: r.level, index: r.idx }), r.hash]));
  }
}
