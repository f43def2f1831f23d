import type { Kysely, Migration } from 'kysely';
import { EVENT_LOG_TABLE } from '../event-log.table';

/**
 * Who caused each event (the change feed, docs/history.md): nullable, so the events landed before
 * it read as "no actor". Tracked by the event log's own migration table (see migrateSchema), since
 * every service's migrations already sort after 0000_event_log.
 */
// Frozen: a change to the event log is a new migration, never an edit of this one.
export function eventLogActorMigration(schema: string): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .withSchema(schema)
        .alterTable(EVENT_LOG_TABLE)
        .addColumn('actor_accessor', 'text')
        .addColumn('actor_entity_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('request_path', 'text')
        .execute();
    },
  };
}
