import { Kysely, PostgresDialect } from 'kysely';
import { Pool } from 'pg';
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
  const db: AnyDb = new Kysely({ dialect: new PostgresDialect({ pool }) });
  let closing: Promise<void> | undefined;
  return { db, dialect: 'pg', close: () => (closing ??= db.destroy()) };
}
