import type { Kysely } from 'kysely';

/** Read model of identity entities and their aliases. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('identity_entities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('policies', 'jsonb', (c) => c.notNull())
    .addColumn('disabled', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('identity_aliases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('canonical_id', 'text', (c) => c.notNull())
    .addColumn('mount_accessor', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('custom_metadata', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('identity_aliases_factors_key', ['mount_accessor', 'name'])
    .execute();
  await db.schema
    .createIndex('identity_aliases_canonical_idx')
    .on('identity_aliases')
    .column('canonical_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('identity_aliases').execute();
  await db.schema.dropTable('identity_entities').execute();
}
