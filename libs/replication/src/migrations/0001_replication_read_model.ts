import type { Kysely, Migration } from 'kysely';

/** Read model of the replication service (frozen: later changes go in new migrations). */
export const replicationReadModel0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('replication_state')
      .addColumn('mode', 'text', (c) => c.primaryKey())
      .addColumn('public_state', 'text', (c) => c.notNull())
      .addColumn('secrets', 'bytea', (c) => c.notNull())
      .addColumn('stream_version', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('replica_log')
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('wal', 'bigint', (c) => c.notNull())
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('stream_version', 'bigint', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('schema_version', 'integer', (c) => c.notNull())
      .addColumn('payload', 'bytea', (c) => c.notNull())
      .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('replica_log_pk', ['mode', 'source', 'wal'])
      .execute();
    await db.schema
      .createTable('replica_positions')
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('last_wal', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('replica_positions_pk', ['mode', 'source'])
      .execute();
  },
};
