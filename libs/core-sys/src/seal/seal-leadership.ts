import { sql } from 'kysely';
import { runJob } from '@coffer/scheduling';
import type { CoreSysDb } from '../core-sys.table';

/**
 * Picks the one core-sys replica that runs init/unseal/seal/rotate: whoever holds a Postgres
 * session advisory lock on a dedicated connection. Losing the connection loses the lock (the
 * server releases session locks when the session ends), and the heartbeat notices it. The
 * embedded PGlite database has a single process, which is always the leader.
 */

/** Advisory locks are per database, so one key per schema is enough. */
const LOCK_KEY = 'coffer.core-sys.seal-leader';

export interface LeadershipOptions {
  /** how often a follower retries to take the lock */
  retryMs: number;
  /** how often the leader checks its connection is alive */
  heartbeatMs: number;
  onChange: (leader: boolean) => void;
  onError: (error: unknown) => void;
  /** another role elected the same way (e.g. the lease manager); the seal leader's by default */
  lockKey?: string;
}

export class SealLeadership {
  #leader = false;
  #stopped = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(
    private readonly db: CoreSysDb,
    private readonly embedded: boolean,
    private readonly opts: LeadershipOptions,
  ) {}

  get isLeader(): boolean {
    return this.#leader;
  }

  /** Resolves after the first attempt to take the lock. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (this.embedded) {
      this.#set(true);
      return;
    }
    let firstAttempt!: () => void;
    const attempted = new Promise<void>((resolve) => (firstAttempt = resolve));
    this.#loop = this.#run(firstAttempt).catch((error: unknown) => this.opts.onError(error));
    await attempted;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    this.#set(false);
  }

  #set(leader: boolean): void {
    if (this.#leader === leader) return;
    this.#leader = leader;
    this.opts.onChange(leader);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One dedicated connection per attempt cycle; re-acquired after a connection failure. */
  async #run(firstAttempt: () => void): Promise<void> {
    const key = `${this.opts.lockKey ?? LOCK_KEY}:${this.db.schema}`;
    while (!this.#stopped) {
      try {
        await this.db.pool.connection().execute(async (conn) => {
          try {
            while (!this.#stopped) {
              if (!this.#leader) {
                const { rows } = await runJob('leader election', () =>
                  sql<{
                    locked: boolean;
                  }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(conn),
                );
                if (rows[0]?.locked === true) this.#set(true);
                firstAttempt();
              } else {
                await runJob('leader heartbeat', () => sql`select 1`.execute(conn));
              }
              if (this.#stopped) break;
              await this.#sleep(this.#leader ? this.opts.heartbeatMs : this.opts.retryMs);
            }
          } finally {
            this.#set(false);
            // The pooled session outlives this callback: never hand it back still holding the lock.
            await sql`select pg_advisory_unlock_all()`.execute(conn).catch(() => undefined);
          }
        });
      } catch (error) {
        firstAttempt();
        this.#set(false);
        if (!this.#stopped) {
          this.opts.onError(error);
          await this.#sleep(this.opts.retryMs);
        }
      }
    }
  }
}
