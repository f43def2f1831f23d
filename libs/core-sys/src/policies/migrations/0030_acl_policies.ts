import type { Kysely, Migration } from 'kysely';

/** Read model of the ACL policies (the root policy is implicit and never stored). */
export const aclPoliciesMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('acl_policies')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('policy', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('acl_policies').execute();
  },
};
