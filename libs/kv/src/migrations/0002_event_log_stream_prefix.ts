import { sql, type Kysely, type Migration } from 'kysely';

/**
 * kv's LISTs at a time (KvListHistoryService) ask for the streams named `kv/<mount>/<folder>...`:
 * without this index a prefix of the stream name is a scan of the whole log (LIKE uses the
 * (stream, stream_version) index only under the "C" collation, which a database created as
 * C.UTF-8 or en_US.UTF-8 is not). Byte order, as the live LIST sorts. Frozen.
 */
export const kvEventLogStreamPrefix0002: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`create index event_log_stream_prefix on event_log ((stream collate "C"), stream_version)`.execute(
      db,
    );
  },
  async down(db: Kysely<any>): Promise<void> {
    await sql`drop index event_log_stream_prefix`.execute(db);
  },
};
