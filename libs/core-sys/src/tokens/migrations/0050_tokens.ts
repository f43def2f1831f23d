import { sql, type Kysely } from 'kysely';

/** Read model of live tokens: looked up by salted hash, walked by parent, swept by expiry. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tokens')
    .addColumn('accessor', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_ref', 'text', (c) => c.notNull().unique())
    .addColumn('parent_accessor', 'text')
    .addColumn('policies', 'jsonb', (c) => c.notNull())
    .addColumn('meta', 'jsonb', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('num_uses', 'integer', (c) => c.notNull())
    .addColumn('exhausted_at', 'bigint')
    .addColumn('renewable', 'boolean', (c) => c.notNull())
    .addColumn('creation_ttl', 'integer', (c) => c.notNull())
    .addColumn('renew_ttl', 'integer', (c) => c.notNull())
    .addColumn('backend_max_ttl', 'integer', (c) => c.notNull())
    .addColumn('explicit_max_ttl', 'integer', (c) => c.notNull())
    .addColumn('period', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('last_renewed_at', 'bigint')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('mount_accessor', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tokens_parent_idx')
    .on('tokens')
    .column('parent_accessor')
    .where(sql.ref('parent_accessor'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('tokens_expires_idx')
    .on('tokens')
    .column('expires_at')
    .where(sql.ref('expires_at'), '>', 0)
    .execute();
  await db.schema
    .createIndex('tokens_exhausted_idx')
    .on('tokens')
    .column('exhausted_at')
    .where(sql.ref('exhausted_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('tokens_path_idx')
    .on('tokens')
    .expression(sql`path text_pattern_ops`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tokens').execute();
}
