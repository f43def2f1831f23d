import type { Kysely } from 'kysely';

/** Read model of AppRole roles and secret ids, keyed by mount uuid; secret ids by their HMAC only. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('approle_roles')
    .addColumn('mount_uuid', 'text', (c) => c.notNull())
    .addColumn('role_name', 'text', (c) => c.notNull())
    .addColumn('role_id', 'text', (c) => c.notNull())
    .addColumn('bind_secret_id', 'boolean', (c) => c.notNull())
    .addColumn('secret_id_bound_cidrs', 'jsonb', (c) => c.notNull())
    .addColumn('secret_id_num_uses', 'integer', (c) => c.notNull())
    .addColumn('secret_id_ttl', 'integer', (c) => c.notNull())
    .addColumn('local_secret_ids', 'boolean', (c) => c.notNull())
    .addColumn('token_settings', 'jsonb', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('approle_roles_pkey', ['mount_uuid', 'role_name'])
    .addUniqueConstraint('approle_roles_role_id_key', ['mount_uuid', 'role_id'])
    .execute();
  await db.schema
    .createTable('approle_secret_ids')
    .addColumn('mount_uuid', 'text', (c) => c.notNull())
    .addColumn('hmac', 'text', (c) => c.notNull())
    .addColumn('role_name', 'text', (c) => c.notNull())
    .addColumn('accessor', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('cidr_list', 'jsonb', (c) => c.notNull())
    .addColumn('token_bound_cidrs', 'jsonb', (c) => c.notNull())
    .addColumn('num_uses', 'integer', (c) => c.notNull())
    .addColumn('ttl', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('approle_secret_ids_pkey', ['mount_uuid', 'hmac'])
    .addUniqueConstraint('approle_secret_ids_accessor_key', ['mount_uuid', 'accessor'])
    .execute();
  await db.schema
    .createIndex('approle_secret_ids_role_idx')
    .on('approle_secret_ids')
    .columns(['mount_uuid', 'role_name'])
    .execute();
  await db.schema
    .createIndex('approle_secret_ids_expiry_idx')
    .on('approle_secret_ids')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('approle_secret_ids').execute();
  await db.schema.dropTable('approle_roles').execute();
}
