import type { Kysely, Migration } from 'kysely';

/**
 * The access index of the core_sys log (sys/history/access and the policy LIST at a time): every
 * policy version with its WAL, the policy streams, and every token's live WAL range with its
 * namespace, entity and policies. Derived from the log, rebuilt by the history indexer.
 */
export const historyAccessIndexMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('history_index_heads')
      .addColumn('log', 'text', (c) => c.primaryKey())
      .addColumn('wal', 'int8', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('history_policy_versions')
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('wal', 'int8', (c) => c.notNull())
      .addColumn('written', 'boolean', (c) => c.notNull())
      .addPrimaryKeyConstraint('history_policy_versions_pkey', ['stream', 'wal'])
      .execute();
    await db.schema
      .createTable('history_policy_streams')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .execute();
    await db.schema
      .createTable('history_tokens')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('accessor', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('policies', 'text', (c) => c.notNull())
      .addColumn('created_wal', 'int8', (c) => c.notNull())
      .addColumn('revoked_wal', 'int8')
      .execute();
    await db.schema
      .createIndex('history_tokens_created_wal')
      .on('history_tokens')
      .column('created_wal')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('history_tokens').execute();
    await db.schema.dropTable('history_policy_streams').execute();
    await db.schema.dropTable('history_policy_versions').execute();
    await db.schema.dropTable('history_index_heads').execute();
  },
};
