import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import type { DbHandle } from './pg-db';
import { PgliteWorker, type PgliteWorkerOptions } from './pglite-worker';
import type { AnyDb } from './event-store-types';

export type PgliteDbOptions = PgliteWorkerOptions;

export interface PgliteDbHandle extends DbHandle {
  dialect: 'pglite';
  /** starts PGlite now (in its worker thread) rather than on the first query */
  start(): void;
  /** the key of the snapshot the database was started from; undefined when it started empty */
  snapshotKey(): Promise<string | undefined>;
  /** writes the database to `file` under `key`, a snapshot for later starts to begin from */
  saveSnapshot(file: string, key: string): Promise<void>;
}

/**
 * PGlite is one Postgres backend: one session, so one transaction at a time. kysely-pglite hands
 * every caller that same session without exclusion, so two concurrent kysely transactions
 * interleave their statements inside one BEGIN/COMMIT. This pool instead leases the single
 * connection to one kysely caller at a time (a query, a transaction or `db.connection()`) and
 * queues the others in order: a pg pool of size 1. As with any size-1 pool, code inside a
 * transaction must use the transaction object, never `db`, or it waits for itself.
 */
class SingleConnectionPool implements PostgresPool {
  readonly #pg: PgliteWorker;
  readonly #waiting: Array<() => void> = [];
  #leased = false;
  readonly #client: PostgresPoolClient;

  constructor(pg: PgliteWorker) {
    this.#pg = pg;
    const query = async <R>(
      sqlText: string,
      parameters: ReadonlyArray<unknown>,
    ): Promise<PostgresQueryResult<R>> => {
      const result = await this.#pg.query(sqlText, parameters);
      // kysely reads the affected-row count only for INSERT/UPDATE/DELETE/MERGE statements and
      // PGlite reports 0 for the others, so the command tag need not be exact.
      return { command: 'UPDATE', rowCount: result.affectedRows, rows: result.rows as R[] };
    };
    this.#client = { query: query as PostgresPoolClient['query'], release: () => this.#release() };
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

/**
 * Databases served by one session (PGlite): no other transaction can ever run beside one of
 * their transactions, so advisory locks guard nothing there and cost a round trip each.
 */
const singleSessionDbs = new WeakSet<AnyDb>();

export const isSingleSession = (db: AnyDb): boolean => singleSessionDbs.has(db);

/** Embedded Postgres (PGlite, in a worker thread) for dev mode and tests. */
export function createPgliteDb(opts: PgliteDbOptions = {}): PgliteDbHandle {
  // started on first use (or `start()`), so this factory stays synchronous like createPgDb
  let worker: PgliteWorker | undefined;
  const workerOf = () => (worker ??= new PgliteWorker(opts));
  const dialect = new PostgresDialect({ pool: async () => new SingleConnectionPool(workerOf()) });
  const db: AnyDb = new Kysely({ dialect });
  singleSessionDbs.add(db);
  let closing: Promise<void> | undefined;
  return {
    db,
    dialect: 'pglite',
    start: () => void workerOf(),
    snapshotKey: () => workerOf().snapshotKey(),
    saveSnapshot: (file, key) => workerOf().saveSnapshot(file, key),
    // a worker started but never queried has no pool to close it
    close: () => (closing ??= db.destroy().then(() => worker?.close())),
  };
}
