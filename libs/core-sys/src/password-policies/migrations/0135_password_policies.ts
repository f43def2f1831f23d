import type { Kysely, Migration } from 'kysely';

/** Read model of the password policies (sys/policies/password). */
export const passwordPoliciesMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('password_policies')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('policy', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('password_policies').execute();
  },
};
