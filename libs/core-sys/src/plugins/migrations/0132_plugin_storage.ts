import type { Kysely, Migration } from 'kysely';

/** Key-value data of external plugins, per plugin and mount, barrier-encrypted. */
export const pluginStorageMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('plugin_storage')
      .addColumn('plugin', 'text', (c) => c.notNull())
      .addColumn('mount', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'bytea', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
      .addPrimaryKeyConstraint('plugin_storage_pk', ['plugin', 'mount', 'key'])
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('plugin_storage').execute();
  },
};
