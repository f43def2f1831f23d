import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Migration } from 'kysely';
import { eventLogLaterMigrations, migrateSchema } from './migrate';
import { EVENT_LOG_MIGRATION, eventLogMigration } from './migrations/0000_event_log';
import { createPgliteDb, type PgliteDbHandle } from './pglite-db';

/** A service's schema and its migrations, as `migrateSchema` takes them. */
export interface SchemaMigrations {
  schema: string;
  migrations: Record<string, Migration>;
}

/**
 * The snapshot file of the installed PGlite in `cacheDir`: a data directory written by one PGlite
 * version is only ever loaded by the same version.
 */
export function pgliteSnapshotFile(cacheDir: string): string {
  const packageJson = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return path.join(cacheDir, `pglite-${version}.snapshot`);
}

/**
 * Identifies the migrated schemas: every schema's migrations by name and by their code. Landed
 * migrations are frozen, so the names alone would do; the code also catches a migration edited
 * before it landed (a helper it calls is not covered).
 */
export function migrationsKey(services: readonly SchemaMigrations[]): string {
  const hash = createHash('sha256');
  for (const { schema, migrations } of services) {
    const all: Record<string, Migration> = {
      [EVENT_LOG_MIGRATION]: eventLogMigration(schema),
      ...migrations,
      ...eventLogLaterMigrations(schema),
    };
    hash.update(`schema ${schema}\n`);
    for (const [name, migration] of Object.entries(all)) {
      hash.update(`${name}\n${String(migration.up)}\n${String(migration.down)}\n`);
    }
  }
  return hash.digest('hex');
}

/**
 * An in-memory PGlite for dev mode, started from the cached snapshot at `snapshotFile` when there
 * is one. Its worker starts loading at once, so the caller can load the rest of the process
 * meanwhile; `migrateFromSnapshot` then finishes it.
 */
export function startPgliteFromSnapshot(snapshotFile: string): PgliteDbHandle {
  const handle = createPgliteDb({ snapshotFile });
  handle.start();
  return handle;
}

/**
 * Brings a database started by `startPgliteFromSnapshot` to the latest migration of every schema.
 * A snapshot of exactly these migrations is used as it is: initdb and every migration are what
 * an in-memory start costs otherwise (seconds of WASM). Any other start (no snapshot, another
 * migration list) runs on an empty cluster and then writes the snapshot for the next start.
 * Only the migrated, still empty schemas are ever saved; nothing written after this call is.
 */
export async function migrateFromSnapshot(
  started: PgliteDbHandle,
  snapshotFile: string,
  services: readonly SchemaMigrations[],
): Promise<{ handle: PgliteDbHandle; restored: boolean; saveError?: unknown }> {
  const key = migrationsKey(services);
  const loaded = await started.snapshotKey();
  if (loaded === key) return { handle: started, restored: true };
  let handle = started;
  if (loaded !== undefined) {
    // migrations changed since the snapshot: start over from an empty cluster
    await started.close();
    handle = createPgliteDb();
  }
  for (const { schema, migrations } of services) await migrateSchema(handle.db, schema, migrations);
  try {
    await handle.saveSnapshot(snapshotFile, key);
    return { handle, restored: false };
  } catch (saveError) {
    // the cache is an accelerator: a read-only tree simply migrates at every start
    return { handle, restored: false, saveError };
  }
}
