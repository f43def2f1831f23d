import type { Kysely, Migration } from 'kysely';

/** The Merkle index of the event logs (sys/history proofs) and the state-at-a-time snapshots. */
export const historyMerkleMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('history_merkle_nodes')
      .addColumn('log', 'text', (c) => c.notNull())
      .addColumn('level', 'int2', (c) => c.notNull())
      .addColumn('idx', 'int8', (c) => c.notNull())
      .addColumn('hash', 'bytea', (c) => c.notNull())
      .addPrimaryKeyConstraint('history_merkle_nodes_pkey', ['log', 'level', 'idx'])
      .execute();
    await db.schema
      .createTable('history_merkle_heads')
      .addColumn('log', 'text', (c) => c.primaryKey())
      .addColumn('size', 'int8', (c) => c.notNull())
      .addColumn('frontier', 'bytea', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('history_state_snapshots')
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('version', 'int8', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('history_state_snapshots_pkey', ['stream', 'version'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('history_state_snapshots').execute();
    await db.schema.dropTable('history_merkle_heads').execute();
    await db.schema.dropTable('history_merkle_nodes').execute();
  },
};
