import type { Kysely, Migration } from 'kysely';

/** Read model of the ssh service (frozen: later changes go in new migrations). */
export const sshReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('records')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('body', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ssh_records_pk', ['mount_uuid', 'kind', 'name'])
      .execute();
    await db.schema
      .createTable('otps')
      .addColumn('mount_uuid', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('role_name', 'text', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('ssh_otps_pk', ['mount_uuid', 'hash'])
      .execute();
  },
};
