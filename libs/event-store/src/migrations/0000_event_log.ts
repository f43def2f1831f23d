import { sql, type Kysely, type Migration } from 'kysely';
import { EVENT_LOG_TABLE, STREAM_VERSION_CONSTRAINT } from '../event-log.table';

/** Sorts before every service migration ("0001_..."), so the log exists first. */
export const EVENT_LOG_MIGRATION = '0000_event_log';

// Frozen: a change to the event log is a new migration, never an edit of this one.
export function eventLogMigration(schema: string): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .withSchema(schema)
        .createTable(EVENT_LOG_TABLE)
        .addColumn('wal', 'bigint', (c) => c.primaryKey())
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('stream_version', 'bigint', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('schema_version', 'integer', (c) => c.notNull())
        .addColumn('payload', 'bytea', (c) => c.notNull())
        .addColumn('recorded_at', 'timestamptz', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addUniqueConstraint(STREAM_VERSION_CONSTRAINT, ['stream', 'stream_version'])
        .addCheckConstraint('event_log_wal_positive', sql`wal > 0`)
        .addCheckConstraint('event_log_stream_version_positive', sql`stream_version > 0`)
        .execute();
    },
    async down(db: Kysely<any>): Promise<void> {
      await db.schema.withSchema(schema).dropTable(EVENT_LOG_TABLE).execute();
    },
  };
}
