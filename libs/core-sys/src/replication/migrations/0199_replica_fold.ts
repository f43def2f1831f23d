import type { Kysely, Migration } from 'kysely';

/** The promotion fold's progress (replica-fold.table.ts). */
export const replicaFold0199: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('replica_folded')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('replica_fold_position')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('through_wal', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('replica_fold_position').values({ id: 1, through_wal: 0 }).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('replica_fold_position').execute();
    await db.schema.dropTable('replica_folded').execute();
  },
};
