import { sql, type Kysely } from 'kysely';

/** Read model of live leases: by id (prefix listing), by due time (the lease manager), by token. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('lease_id', 'text', (c) => c.primaryKey())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('mount_uuid', 'text', (c) => c.notNull())
    .addColumn('mount_accessor', 'text', (c) => c.notNull())
    .addColumn('mount_path', 'text', (c) => c.notNull())
    .addColumn('mount_type', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('token_accessor', 'text')
    .addColumn('renewable', 'boolean', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('issued_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('max_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_renewal', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('irrevocable', 'boolean', (c) => c.notNull())
    .addColumn('last_error', 'text', (c) => c.notNull())
    .addColumn('internal', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('leases_due_idx')
    .on('leases')
    .columns(['expires_at', 'next_attempt_at'])
    .where(sql.ref('irrevocable'), '=', false)
    .execute();
  await db.schema.createIndex('leases_token_idx').on('leases').column('token_accessor').execute();
  await db.schema
    .createIndex('leases_prefix_idx')
    .on('leases')
    .expression(sql`lease_id text_pattern_ops`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leases').execute();
}
