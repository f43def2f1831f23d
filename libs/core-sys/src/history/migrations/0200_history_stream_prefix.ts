import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The auth methods' LISTs at a time (AppRole roles, userpass users, token roles) ask for the
 * streams named `<aggregate>/<mount uuid>/...` up to an instant (`EventStore.namesAt`): without
 * this index a prefix of the stream name is a scan of the whole core_sys log, which holds
 * millions of token events (LIKE uses the (stream, stream_version) index only under the "C"
 * collation). As kv's 0002_event_log_stream_prefix. Frozen.
 */
export const historyStreamPrefixMigration: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index event_log_stream_prefix on event_log ((stream collate "C"), stream_version)`.execute(
      db,
    );
  },
  async down(db: Kysely<any>): Promise<void> {
    await sql`drop index event_log_stream_prefix`.execute(db);
  },
};
