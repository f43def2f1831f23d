// Test support shared by this lib's integration specs: the same suite runs on real Postgres (a
// fresh database per spec file) and on in-memory PGlite.
import { createTestDatabase, type TestDatabase } from '@coffer/testing';
import { Barrier, createKeyring } from '@coffer/barrier';
import { sql } from 'kysely';
import { z } from 'zod';
import { createPgDb, type DbHandle } from './pg-db';
import { createPgliteDb } from './pglite-db';
import { defineEvent, EventRegistry } from './event-registry';

export type Dialect = 'pg' | 'pglite';
/** for beforeAll hooks that open a dialect */
export const OPEN_TIMEOUT_MS = 60_000;
export const DIALECTS: Dialect[] = ['pg', 'pglite'];

export interface DialectFixture {
  handle: DbHandle;
  /** pg only: the test database (for a second pool, pg_dump, ...) */
  testDb: TestDatabase | undefined;
  /** a second, independent handle on the same database (pg: another pool; PGlite: the same) */
  openAnother(): DbHandle;
  close(): Promise<void>;
}

export async function openDialect(dialect: Dialect, label: string): Promise<DialectFixture> {
  if (dialect === 'pglite') {
    const handle = createPgliteDb();
    // start the embedded database now (several seconds: WASM compile + initdb), not in a test
    await sql`select 1`.execute(handle.db);
    return { handle, testDb: undefined, openAnother: () => handle, close: () => handle.close() };
  }
  const testDb = await createTestDatabase(label);
  const handle = createPgDb(testDb.url, { max: 8 });
  const extra: DbHandle[] = [];
  return {
    handle,
    testDb,
    openAnother: () => {
      const h = createPgDb(testDb.url, { max: 4 });
      extra.push(h);
      return h;
    },
    close: async () => {
      await Promise.all(extra.map((h) => h.close()));
      await handle.close();
      await testDb.drop();
    },
  };
}

let schemaCounter = 0;
/** a fresh schema name per test, so tests in one database never share a log */
export const nextSchema = (label: string): string => `${label}_${++schemaCounter}`;

export const SecretWritten = defineEvent(
  'SecretWritten',
  1,
  z.object({ path: z.string(), value: z.string(), size: z.number().int() }),
);
export const SecretDeleted = defineEvent('SecretDeleted', 1, z.object({ path: z.string() }));
/** A SecretWritten event of `path` with a fixed small value (the specs care about streams, not values). */
export const written = (path: string) => SecretWritten.create({ path, value: 'v', size: 1 });
export const testRegistry = (): EventRegistry => new EventRegistry([SecretWritten, SecretDeleted]);

export function unsealedBarrier(): Barrier {
  const barrier = new Barrier();
  barrier.load(createKeyring());
  return barrier;
}
