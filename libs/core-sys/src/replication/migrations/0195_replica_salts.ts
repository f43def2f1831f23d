import type { Kysely, Migration } from 'kysely';

/**
 * The primary's salts on a secondary (see replica-salt.repository.ts): the token salt (DR) and
 * the AppRole mounts' secret-id salts, barrier-encrypted by this cluster, one row per stream.
 */
export const replicaSalts0195: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('replica_salts')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('salt', 'bytea', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('replica_salts').execute();
  },
};
