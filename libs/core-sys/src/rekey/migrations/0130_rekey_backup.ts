import type { Kysely, Migration } from 'kysely';

/** The one backup of PGP-encrypted unseal key shares of the last rekey with backup=true. */
export const rekeyBackupMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('rekey_backup')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('backup', 'bytea', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('rekey_backup').execute();
  },
};
