import type { Kysely } from 'kysely';

/** sys/remount's migrations (Vault keeps them in memory; here every core-sys replica can answer). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mount_migrations')
    .addColumn('migration_id', 'text', (c) => c.primaryKey())
    .addColumn('mount_uuid', 'text', (c) => c.notNull())
    .addColumn('source_namespace', 'text', (c) => c.notNull())
    .addColumn('source_path', 'text', (c) => c.notNull())
    .addColumn('target_namespace', 'text', (c) => c.notNull())
    .addColumn('target_path', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mount_migrations_by_status')
    .on('mount_migrations')
    .columns(['status', 'started_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mount_migrations').execute();
}
