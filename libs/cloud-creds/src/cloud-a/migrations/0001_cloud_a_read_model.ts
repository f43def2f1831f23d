import type { Kysely, Migration } from 'kysely';

/** Read model of cloud-a (frozen: later changes go in new migrations). */
export const cloudAReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('cloud_a_records')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addColumn('pending_until', 'timestamptz')
      .addPrimaryKeyConstraint('cloud_a_records_pk', ['mount_uuid', 'kind', 'name'])
      .execute();
    await db.schema
      .createIndex('cloud_a_records_pending')
      .on('cloud_a_records')
      .column('pending_until')
      .execute();
  },
};
