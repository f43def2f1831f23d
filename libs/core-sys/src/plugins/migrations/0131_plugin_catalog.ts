import type { Kysely, Migration } from 'kysely';

/** Registered external plugins; several versions of one name side by side. */
export const pluginCatalogMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('plugin_catalog')
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('entry', 'bytea', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('plugin_catalog_pk', ['type', 'name', 'version'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('plugin_catalog').execute();
  },
};
