import type { Kysely } from 'kysely';

/** Read model of audit devices (no salt) and of the audited request headers. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_devices')
    .addColumn('path', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('options', 'jsonb', (c) => c.notNull())
    .addColumn('local', 'boolean', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('audit_request_headers')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('hmac', 'boolean', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_request_headers').execute();
  await db.schema.dropTable('audit_devices').execute();
}
