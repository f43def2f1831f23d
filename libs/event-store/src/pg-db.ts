import { Kysely, PostgresDialect } from 'kysely';
import { Client, Pool } from 'pg';
import { pgTypeParsers } from './type-parsers';
import type { AnyDb } from './event-store-types';

export interface DbHandle {
  db: AnyDb;
  dialect: 'pg' | 'pglite';
  /** closes the pool / the embedded database */
  close(): Promise<void>;
}

export interface PgDbOptions {
  /** pool size; default 10 */
  max?: number;
  applicationName?: string;
  /**
   * Errors of idle pooled connections (server restart, network). The pool drops the broken
   * client and the next query reconnects; without a listener node would crash the process.
   */
  onError?: (error: Error) => void;
}

export function createPgDb(url: string, opts: PgDbOptions = {}): DbHandle {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    types: pgTypeParsers,
    ...(opts.applicationName ? { application_name: opts.applicationName } : {}),
  });
  pool.on('error', (error) => opts.onError?.(error));
  // A connection checked out for long (a held lock, a long transaction) has no pool listener:
  // without its own, losing Postgres under it would crash the process.
  pool.on('connect', (client) => client.on('error', (error) => opts.onError?.(error)));
  const db: AnyDb = new Kysely({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return { db, dialect: 'pg', close: () => (closing ??= db.destroy()) };
}

/**
 * One round trip on a connection of its own (for /health): a busy pool must not make a healthy
 * database look lost, and a lost one fails within `timeoutMs`.
 */
export async function pingPostgres(url: string, timeoutMs = 2000): Promise<void> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}
