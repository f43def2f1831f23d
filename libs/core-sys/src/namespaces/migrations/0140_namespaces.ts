import { sql, type Kysely, type Migration } from 'kysely';

/** Read model of the namespace tree (sys/namespaces) and the revision of its one stream. */
export const namespacesMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('namespaces')
      .addColumn('path', 'text', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('custom_metadata', 'jsonb', (c) => c.notNull())
      .addColumn('deleting', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('namespace_tree_revision')
      .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('revision', 'integer', (c) => c.notNull())
      .execute();
    await db.insertInto('namespace_tree_revision').values({ id: 1, revision: 0 }).execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('namespace_tree_revision').execute();
    await db.schema.dropTable('namespaces').execute();
  },
};
