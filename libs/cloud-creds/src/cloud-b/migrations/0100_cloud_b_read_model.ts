import type { Kysely, Migration } from 'kysely';

/** Read model of cloud-b (frozen: later changes go in new migrations). */
export const cloudBReadModel0100: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('cloud_b_records')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addColumn('pending_since', 'timestamptz')
      .addPrimaryKeyConstraint('cloud_b_records_pk', ['mount_uuid', 'kind', 'name'])
      .execute();
    await db.schema
      .createIndex('cloud_b_records_pending')
      .on('cloud_b_records')
      .column('pending_since')
      .execute();
  },
};
