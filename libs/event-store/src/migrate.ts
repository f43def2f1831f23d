import { Migrator, sql, type Migration, type MigrationResult } from 'kysely';
import { EVENT_LOG_MIGRATION, eventLogMigration } from './migrations/0000_event_log';
import { eventLogActorMigration } from './migrations/0001_event_log_actor';
import type { AnyDb } from './event-store-types';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
}

/**
 * Each migration runs with `search_path` set to the service's schema (SET LOCAL, inside the
 * migrator's transaction), so unqualified names in kysely-built or raw SQL land in that schema.
 */
function inSchema(schema: string, migration: Migration): Migration {
  const scoped = async (db: Parameters<Migration['up']>[0], fn: Migration['up']) => {
    await sql`set local search_path to ${sql.id(schema)}, public`.execute(db);
    await fn(db);
  };
  const down = migration.down;
  return {
    up: (db) => scoped(db, migration.up),
    ...(down ? { down: (db: Parameters<Migration['up']>[0]) => scoped(db, down) } : {}),
  };
}

async function createSchema(db: AnyDb, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (error) {
    // Two replicas racing on CREATE SCHEMA IF NOT EXISTS: the loser can still fail on the catalog's
    // unique index. The schema existing afterwards is all that matters.
    const found = await sql<{ n: number }>`select 1 as n from pg_namespace where nspname = ${schema}`.execute(
      db,
    );
    if (found.rows.length === 0) throw error;
  }
}

/**
 * Creates the service's schema and brings it to the latest migration: the event log's own
 * migration first, then the service's. The history lives in `<schema>.kysely_migration`.
 *
 * Two replicas starting at once are safe: kysely's Migrator (0.28) takes a session-level
 * pg_advisory_lock on a dedicated connection and re-reads the executed migrations inside its
 * transaction after acquiring it, so the second replica finds everything applied and does
 * nothing; its "create table if not exists" for the history tables tolerates the same race.
 */
export async function migrateSchema(
  db: AnyDb,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<MigrationResult[]> {
  assertSchemaName(schema);
  for (const name of Object.keys(migrations)) {
    if (name <= EVENT_LOG_MIGRATION) {
      throw new Error(
        `migration ${JSON.stringify(name)} must sort after ${JSON.stringify(EVENT_LOG_MIGRATION)}`,
      );
    }
  }
  await createSchema(db, schema);
  const all: Record<string, Migration> = { [EVENT_LOG_MIGRATION]: eventLogMigration(schema) };
  for (const [name, migration] of Object.entries(migrations)) all[name] = inSchema(schema, migration);
  const migrator = new Migrator({
    db,
    migrationTableSchema: schema,
    provider: { getMigrations: async () => all },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : 'unknown error';
    throw new Error(
      `migrating schema ${schema} failed${failed ? ` at ${failed.migrationName}` : ''}: ${reason}`,
      {
        cause: error,
      },
    );
  }
  return [...results, ...(await migrateEventLog(db, schema))];
}

/**
 * Where migrations record themselves: kysely's default tables (the service's migrations) and the
 * event log's own (see migrateEventLog). Whatever clears a schema's data must keep these.
 */
export const MIGRATION_TABLE_PREFIXES = ['kysely_migration', 'event_log_migration'] as const;

/** The event log's migrations after 0000_event_log (also what identifies a dev-mode snapshot). */
export function eventLogLaterMigrations(schema: string): Record<string, Migration> {
  return { '0001_event_log_actor': eventLogActorMigration(schema) };
}

/**
 * The event log's migrations after 0000_event_log, in a history table of their own: they cannot
 * join the service's (its migrations already run after 0000, and kysely refuses a new migration
 * sorting before executed ones).
 */
async function migrateEventLog(db: AnyDb, schema: string): Promise<MigrationResult[]> {
  const migrator = new Migrator({
    db,
    migrationTableSchema: schema,
    migrationTableName: 'event_log_migration',
    migrationLockTableName: 'event_log_migration_lock',
    provider: { getMigrations: async () => eventLogLaterMigrations(schema) },
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const reason = error instanceof Error ? error.message : 'unknown error';
    throw new Error(`migrating the event log of ${schema} failed: ${reason}`, { cause: error });
  }
  return results;
}
