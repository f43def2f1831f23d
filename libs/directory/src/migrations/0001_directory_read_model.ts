import type { Kysely, Migration } from 'kysely';

/** Read model of the directory service (frozen: later changes go in new migrations). */
export const directoryReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('records')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addColumn('due_at', 'timestamptz')
      .addColumn('pending_since', 'timestamptz')
      .addPrimaryKeyConstraint('directory_records_pk', ['mount_uuid', 'kind', 'name'])
      .execute();
    await db.schema.createIndex('directory_records_due').on('records').column('due_at').execute();
  },
};
