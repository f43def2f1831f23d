import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Mounts and tokens belong to a namespace ("" = root): a mount path is unique within its
 * namespace only, and a namespace's tokens are found (and revoked with it) by this column.
 */
export const namespaceScopingMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('mounts')
      .addColumn('namespace', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await sql`ALTER TABLE mounts DROP CONSTRAINT mounts_path_key`.execute(db);
    await db.schema
      .alterTable('mounts')
      .addUniqueConstraint('mounts_namespace_path_key', ['namespace', 'path'])
      .execute();
    await db.schema
      .alterTable('tokens')
      .addColumn('namespace', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('tokens_namespace_idx')
      .on('tokens')
      .column('namespace')
      .where(sql.ref('namespace'), '<>', '')
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('tokens_namespace_idx').execute();
    await db.schema.alterTable('tokens').dropColumn('namespace').execute();
    await db.schema.alterTable('mounts').dropConstraint('mounts_namespace_path_key').execute();
    await db.schema.alterTable('mounts').addUniqueConstraint('mounts_path_key', ['path']).execute();
    await db.schema.alterTable('mounts').dropColumn('namespace').execute();
  },
};
