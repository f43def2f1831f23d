import { Kysely, PostgresDialect } from 'kysely';
import { Client, Pool } from 'pg';
import { pgUrl } from './test-env';
import { uniqueName } from './names';
import { pgTypes } from './pg-types';

export interface TestDatabase {
  /** connection URL of the fresh database */
  url: string;
  name: string;
  /** a small pool on it (int8 as number, timestamptz as Date, like the services) */
  db: Kysely<any>;
  /** closes `db` and drops the database (idempotent) */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** connections of `db`; default 5 */
  poolSize?: number;
}

/** Empty template every test database is copied from; bump the suffix if its content changes. */
const TEMPLATE = 'coffer_test_template_v1';
const DB_PREFIX = 'ct_';
/** Advisory lock key serialising template creation across parallel test workers. */
const TEMPLATE_LOCK = 7_271_101;
/** Test databases older than this are leftovers of crashed runs and get dropped. */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

let prepared: Promise<void> | undefined;

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

async function ensureTemplate(client: Client): Promise<void> {
  await client.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [TEMPLATE]);
    if (found.rowCount === 0) {
      await client.query(`create database ${quote(TEMPLATE)} template template0 is_template true`);
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

async function dropStaleDatabases(client: Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(
    `select d.datname from pg_database d
      where d.datname like 'ct\\_%' and not d.datistemplate
        and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`,
  );
  for (const { datname } of rows) {
    const parts = datname.split('_');
    const createdAt = parseInt(parts[parts.length - 2] ?? '', 36);
    if (!Number.isFinite(createdAt) || Date.now() - createdAt < STALE_AFTER_MS) continue;
    await client.query(`drop database if exists ${quote(datname)}`).catch(() => undefined);
  }
}

/**
 * A fresh, empty database for one test file: `CREATE DATABASE ... TEMPLATE` of an empty template
 * created once (fast, no migrations replayed from scratch by Postgres itself). Call `drop()` in
 * afterAll.
 */
export async function createTestDatabase(
  prefix: string,
  opts: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  prepared ??= withAdmin(async (client) => {
    await ensureTemplate(client);
    await dropStaleDatabases(client).catch(() => undefined);
  });
  try {
    await prepared;
  } catch (error) {
    prepared = undefined;
    throw error;
  }
  const name = `${DB_PREFIX}${uniqueName(prefix, 20)}`;
  await withAdmin((client) => client.query(`create database ${quote(name)} template ${quote(TEMPLATE)}`));
  const url = pgUrl(name);
  const pool = new Pool({ connectionString: url, max: opts.poolSize ?? 5, types: pgTypes });
  // an idle client losing its connection (database dropped) must not crash the test process
  pool.on('error', () => undefined);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  let dropped: Promise<void> | undefined;
  return {
    url,
    name,
    db,
    drop: () =>
      (dropped ??= (async () => {
        await db.destroy();
        await withAdmin((client) => client.query(`drop database if exists ${quote(name)} with (force)`));
      })()),
  };
}
