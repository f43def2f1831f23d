import { sql, type Kysely, type Migration } from 'kysely';

/** Read model of the pki service (frozen: later changes go in new migrations). */
export const pkiReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('documents')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('sealed', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('documents_pk', ['mount_uuid', 'kind', 'name'])
      .execute();
    await db.schema
      .createTable('certificates')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('serial', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('sealed', 'bytea', (c) => c.notNull())
      .addColumn('not_after_ms', 'bigint', (c) => c.notNull())
      .addColumn('revoked_ms', 'bigint')
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('certificates_pk', ['mount_uuid', 'serial'])
      .execute();
    await db.schema
      .createIndex('certificates_revoked')
      .on('certificates')
      .columns(['mount_uuid', 'revoked_ms'])
      .where(sql.ref('revoked_ms'), 'is not', null)
      .execute();
  },
};
