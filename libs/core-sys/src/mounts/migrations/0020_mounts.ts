import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/** Runs with search_path set to the service's schema (migrateSchema). Read model of the mount table (secrets engines, auth methods, built-ins) and its revision. */
export const mountsMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    const schema = db.schema;
    await schema
      .createTable('mounts')
      .addColumn('uuid', 'text', (c) => c.primaryKey())
      .addColumn('path', 'text', (c) => c.notNull().unique())
      .addColumn('table_kind', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('accessor', 'text', (c) => c.notNull().unique())
      .addColumn('options', 'jsonb', (c) => c.notNull())
      .addColumn('default_lease_ttl', 'integer', (c) => c.notNull())
      .addColumn('max_lease_ttl', 'integer', (c) => c.notNull())
      .addColumn('force_no_cache', 'boolean', (c) => c.notNull())
      .addColumn('listing_visibility', 'text', (c) => c.notNull())
      .addColumn('token_type', 'text', (c) => c.notNull())
      .addColumn('local', 'boolean', (c) => c.notNull())
      .addColumn('seal_wrap', 'boolean', (c) => c.notNull())
      .addColumn('external_entropy_access', 'boolean', (c) => c.notNull())
      .addColumn('enabled_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await schema
      .createTable('mount_table_revision')
      .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('revision', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('mount_table_revision').values({ id: 1, revision: 0 }).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('mount_table_revision').execute();
    await db.schema.dropTable('mounts').execute();
  },
};
