import { sql, type Kysely, type Migration } from 'kysely';
import { eventLogActorMigration, eventLogMigration } from '@coffer/event-store';

/**
 * The log a secondary keeps the primary's core-sys rows in (see core-sys.replay.ts): its own
 * schema with an event log of the event store's shape, so the rows keep their WAL indexes and
 * hash chain next to core-sys's own log. Created with core-sys's schema, never at run time.
 */
export const coreSysReplicaLog0190: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create schema if not exists core_sys_replica`.execute(db);
    await eventLogMigration('core_sys_replica').up(db);
    // the columns every event log has since 0001_event_log_actor (the primary's rows keep them null)
    await eventLogActorMigration('core_sys_replica').up(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop schema if exists core_sys_replica cascade`.execute(db);
  },
};
