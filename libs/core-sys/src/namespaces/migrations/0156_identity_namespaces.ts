import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Namespaces get their API lock (the hash of the unlock key, null = unlocked). Entities and
 * groups belong to a namespace ("" = root), as in Vault: their names are unique
 * within it only, and a namespace's identity objects are found (and deleted with it) by this
 * column. Aliases need no column: their mount accessor already belongs to one namespace.
 */
export const identityNamespacesMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('namespaces').addColumn('unlock_key_hash', 'text').execute();
    for (const table of ['identity_entities', 'identity_groups']) {
      await db.schema
        .alterTable(table)
        .addColumn('namespace', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.raw(`${table}_name_key_key`)}`.execute(
        db,
      );
      await db.schema
        .alterTable(table)
        .addUniqueConstraint(`${table}_namespace_name_key`, ['namespace', 'name_key'])
        .execute();
    }
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('namespaces').dropColumn('unlock_key_hash').execute();
    for (const table of ['identity_groups', 'identity_entities']) {
      await db.schema.alterTable(table).dropConstraint(`${table}_namespace_name_key`).execute();
      await db.schema.alterTable(table).addUniqueConstraint(`${table}_name_key_key`, ['name_key']).execute();
      await db.schema.alterTable(table).dropColumn('namespace').execute();
    }
  },
};
