import type { Kysely, Migration } from 'kysely';

/** Keyrings of the clusters this one replicated from (frozen: later changes go in new migrations). */
export const replicationKeyrings0002: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('replica_keyrings')
      .addColumn('fingerprint', 'text', (c) => c.primaryKey())
      .addColumn('sealed', 'bytea', (c) => c.notNull())
      .addColumn('received_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
};
