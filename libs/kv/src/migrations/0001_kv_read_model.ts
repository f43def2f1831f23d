import { sql, type Kysely, type Migration } from 'kysely';

/** Read model of kv v1, kv v2 and cubbyhole (frozen: later changes go in new migrations). */
export const kvReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('kv2_config')
      .addColumn('mount_uuid', 'text', (c) => c.primaryKey())
      .addColumn('max_versions', 'integer', (c) => c.notNull())
      .addColumn('cas_required', 'boolean', (c) => c.notNull())
      .addColumn('delete_version_after', 'integer', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('kv2_keys')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('path', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('current_version', 'integer', (c) => c.notNull())
      .addColumn('oldest_version', 'integer', (c) => c.notNull())
      .addColumn('max_versions', 'integer', (c) => c.notNull())
      .addColumn('cas_required', 'boolean', (c) => c.notNull())
      .addColumn('delete_version_after', 'integer', (c) => c.notNull())
      .addColumn('custom_metadata', 'bytea')
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('kv2_keys_pk', ['mount_uuid', 'path'])
      .execute();

    await db.schema
      .createTable('kv2_versions')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('path', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .addColumn('deletion_ms', 'bigint')
      .addColumn('destroyed', 'boolean', (c) => c.notNull())
      .addColumn('key_id', 'text')
      .addColumn('ciphertext', 'bytea')
      .addPrimaryKeyConstraint('kv2_versions_pk', ['mount_uuid', 'path', 'version'])
      .execute();

    await db.schema
      .createTable('flat_secrets')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('path', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('ciphertext', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('flat_secrets_pk', ['mount_uuid', 'owner', 'path'])
      .execute();
    // cubbyhole purge and sweep by token (kv v1 rows, owner "", stay out of the index)
    await db.schema
      .createIndex('flat_secrets_owner')
      .on('flat_secrets')
      .column('owner')
      .where(sql.ref('owner'), '<>', '')
      .execute();

    await db.schema
      .createTable('data_keys')
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('wrapped', 'bytea', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('data_keys_mount').on('data_keys').column('mount_uuid').execute();
    await db.schema
      .createIndex('data_keys_owner')
      .on('data_keys')
      .column('owner')
      .where(sql.ref('owner'), '<>', '')
      .execute();
  },
};
