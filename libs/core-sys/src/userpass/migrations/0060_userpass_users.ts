import type { Kysely } from 'kysely';

/** Read model of userpass users, keyed by mount uuid (a remount keeps its users). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('userpass_users')
    .addColumn('mount_uuid', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('token_policies', 'jsonb', (c) => c.notNull())
    .addColumn('token_ttl', 'integer', (c) => c.notNull())
    .addColumn('token_max_ttl', 'integer', (c) => c.notNull())
    .addColumn('token_explicit_max_ttl', 'integer', (c) => c.notNull())
    .addColumn('token_period', 'integer', (c) => c.notNull())
    .addColumn('token_num_uses', 'integer', (c) => c.notNull())
    .addColumn('token_no_default_policy', 'boolean', (c) => c.notNull())
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('token_bound_cidrs', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('userpass_users_pkey', ['mount_uuid', 'username'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('userpass_users').execute();
}
