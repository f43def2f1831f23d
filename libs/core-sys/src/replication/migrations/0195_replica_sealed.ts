import type { Kysely, Migration } from 'kysely';

/**
 * What a secondary keeps of the primary's core-sys log beyond its read models (see
 * replica-sealed.repository.ts): the token salt (DR), the AppRole mounts' secret-id salts and
 * (DR) pending wrapped responses, barrier-encrypted by this cluster, one row per stream.
 */
export const replicaSealed0195: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('replica_sealed')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('value', 'bytea', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('replica_sealed').execute();
  },
};
