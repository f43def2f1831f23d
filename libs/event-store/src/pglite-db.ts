import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import type { DbHandle } from './pg-db';
import { pgliteParsers } from './type-parsers';
import type { AnyDb } from './types';

export interface PgliteDbOptions {
  /** directory of the embedded database; in memory when absent */
  dataDir?: string;
}

/**
 * PGlite is one Postgres backend: one session, so one transaction at a time. kysely-pglite hands
 * every caller the same session without any exclusion, so two concurrent kysely transactions
 * interleave their statements inside one BEGIN/COMMIT. Instead this pool leases the single
 * connection to one kysely caller at a time (a query, a transaction, or `db.connection()`) and
 * queues the others, which is exactly a pg pool of size 1. Consequence, as with any size-1
 * pool: code inside a transaction must use the transaction object, never `db`, or it waits
 * for itself.
 */
class SingleConnectionPool implements PostgresPool {
  readonly #pg: PGlite;
  readonly #waiting: Array<() => void> = [];
  #leased = false;
  readonly #client: PostgresPoolClient;

  constructor(pg: PGlite) {
    this.#pg = pg;
    const query = async <R>(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
      try {
        // Without parameters use the simple protocol like node-postgres does, so multi-statement
        // scripts (migrations) behave the same in both dialects.
        const result =
          parameters.length === 0
            ? (await this.#pg.exec(sqlText)).at(-1)
            : await this.#pg.query<R>(sqlText, [...parameters]);
        // kysely reads the affected-row count only for INSERT/UPDATE/DELETE/MERGE results; PGlite
        // reports 0 for anything else, so the command tag does not need to be exact.
        return { command: 'UPDATE', rowCount: result?.affectedRows ?? 0, rows: (result?.rows ?? []) as R[] };
      } catch (error) {
        // PGlite attaches the bound parameters to its errors; they may carry sensitive values.
        if (error && typeof error === 'object' && 'params' in error) delete (error as { params?: unknown }).params;
        throw error;
      }
    };
    this.#client = {
      query: query as PostgresPoolClient['query'],
      release: () => this.#release(),
    };
  }

  async connect(): Promise<PostgresPoolClient> {
    if (this.#leased) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#leased = true;
    return this.#client;
  }

  #release(): void {
    const next = this.#waiting.shift();
    // hand the lease straight to the next waiter so no newcomer can overtake the queue
    if (next) next();
    else this.#leased = false;
  }

  async end(): Promise<void> {
    await this.#pg.close();
  }
}

export function createPgliteDb(opts: PgliteDbOptions = {}): DbHandle {
  const dialect = new PostgresDialect({
    // created on first use, so this factory stays synchronous like createPgDb
    pool: async () =>
      new SingleConnectionPool(
        await PGlite.create({ ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), parsers: pgliteParsers }),
      ),
  });
  const db: AnyDb = new Kysely({ dialect });
  let closing: Promise<void> | undefined;
  return { db, dialect: 'pglite', close: () => (closing ??= db.destroy()) };
}
