import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { NamespaceRecord } from './namespace.decider';

export interface NamespaceTreeSnapshot {
  tree: NamespaceRecord[];
  /** version of the namespaces/tree stream the rows reflect (at least) */
  revision: number;
}

/** All SQL of the namespace read model. */
@Injectable()
export class NamespaceRepository {
  constructor(private readonly db: CoreSysDb) {}

  /** The revision first: the rows are then at least that new (see MountsRepository.snapshot). */
  async snapshot(): Promise<NamespaceTreeSnapshot> {
    const revision = await this.revision();
    const rows = await this.db
      .of()
      .selectFrom('namespaces')
      .select(['id', 'path', 'custom_metadata', 'deleting', 'unlock_key_hash'])
      .orderBy('path')
      .execute();
    return {
      revision,
      tree: rows.map((r) => ({
        id: r.id,
        path: r.path,
        customMetadata: r.custom_metadata,
        deleting: r.deleting,
        unlockKeyHash: r.unlock_key_hash,
      })),
    };
  }

  async revision(trx?: CoreSysTrx): Promise<number> {
    const row = await this.db
      .of(trx)
      .selectFrom('namespace_tree_revision')
      .select('revision')
      .where('id', '=', 1)
      .executeTakeFirst();
    return row?.revision ?? 0;
  }

  /** The id of the namespace at this full path (lease ids of its leases end with it). */
  async idOf(path: string): Promise<string | undefined> {
    const row = await this.db
      .of()
      .selectFrom('namespaces')
      .select('id')
      .where('path', '=', path)
      .executeTakeFirst();
    return row?.id;
  }

  /** The full path of the namespace with this id (the suffix of its tokens and leases). */
  async pathOf(id: string): Promise<string | undefined> {
    const row = await this.db
      .of()
      .selectFrom('namespaces')
      .select('path')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.path;
  }

  /** A live namespace (not being deleted) exists at this full path. */
  async exists(path: string): Promise<boolean> {
    const row = await this.db
      .of()
      .selectFrom('namespaces')
      .select('path')
      .where('path', '=', path)
      .where('deleting', '=', false)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(trx: CoreSysTrx, n: NamespaceRecord, at: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('namespaces')
      .values({
        path: n.path,
        id: n.id,
        custom_metadata: JSON.stringify(n.customMetadata),
        deleting: n.deleting,
        created_at: at,
      })
      .execute();
  }

  async setMetadata(trx: CoreSysTrx, path: string, customMetadata: Record<string, string>): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('namespaces')
      .set({ custom_metadata: JSON.stringify(customMetadata) })
      .where('path', '=', path)
      .execute();
  }

  async setUnlockKeyHash(trx: CoreSysTrx, path: string, hash: string | null): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('namespaces')
      .set({ unlock_key_hash: hash })
      .where('path', '=', path)
      .execute();
  }

  async markDeleting(trx: CoreSysTrx, path: string): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('namespaces')
      .set({ deleting: true })
      .where('path', '=', path)
      .execute();
  }

  async delete(trx: CoreSysTrx, path: string): Promise<void> {
    await this.db.of(trx).deleteFrom('namespaces').where('path', '=', path).execute();
  }

  async setRevision(trx: CoreSysTrx, revision: number): Promise<void> {
    await this.db
      .of(trx)
      .updateTable('namespace_tree_revision')
      .set({ revision })
      .where('id', '=', 1)
      .execute();
  }
}
