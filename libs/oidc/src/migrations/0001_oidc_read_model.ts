import { sql, type Kysely, type Migration } from 'kysely';

/** Read model of the OIDC provider (frozen: later changes go in new migrations). */
export const oidcReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('resources')
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', sql`text collate "C"`, (c) => c.notNull())
      // null once deleted: the row keeps the stream version for the next write's concurrency check
      .addColumn('body', 'bytea')
      .addColumn('client_id', 'text')
      .addColumn('next_rotation_ms', 'bigint')
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('resources_pk', ['namespace', 'kind', 'name'])
      .execute();
    await db.schema
      .createIndex('resources_client_id')
      .unique()
      .on('resources')
      .columns(['namespace', 'client_id'])
      .where(sql.ref('client_id'), 'is not', null)
      .execute();
    await db.schema
      .createIndex('resources_next_rotation')
      .on('resources')
      .column('next_rotation_ms')
      .where(sql.ref('next_rotation_ms'), 'is not', null)
      .execute();

    await db.schema
      .createTable('codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('expires_ms', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('codes_expires').on('codes').column('expires_ms').execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('expires_ms', 'bigint', (c) => c.notNull())
      .addColumn('revoked', 'boolean', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('access_tokens_code').on('access_tokens').column('code_hash').execute();
    await db.schema.createIndex('access_tokens_expires').on('access_tokens').column('expires_ms').execute();
  },
};
