import type { Kysely, Migration } from 'kysely';

/** Read model of the role and endpoint governing policies (RGPs and EGPs). */
export const sentinelPoliciesMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('sentinel_policies')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('policy', 'text', (c) => c.notNull())
      .addColumn('enforcement_level', 'text', (c) => c.notNull())
      .addColumn('paths', 'jsonb', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('sentinel_policies_pk', ['kind', 'name'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('sentinel_policies').execute();
  },
};
