import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import type { ServiceRuntime } from '@coffer/event-store';
import { KV_RUNTIME } from '../kv.tokens';
import { SHREDDED_TABLES } from './kv.tables';

/**
 * After a shred (destroy, metadata delete, cubbyhole destruction, mount purge) the deleted
 * data-key rows are dead tuples until vacuumed; VACUUM prunes them from the heap pages so the
 * wrapped keys leave the live table files at once. VACUUM cannot run in a transaction and
 * serialises per table, so requests are coalesced: a caller waits for one vacuum that started
 * after its request (at most one running and one queued, whatever the number of callers).
 */
@Injectable()
export class Vacuum {
  private readonly logger = new Logger('kv.vacuum');
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(@Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime) {}

  request(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const queued = this.running.then(() => {
      this.queued = null;
      return this.start();
    });
    this.queued = queued;
    return queued;
  }

  private start(): Promise<void> {
    const run = this.vacuum().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async vacuum(): Promise<void> {
    const tables = SHREDDED_TABLES.map((t) => sql.table(`${this.runtime.schema}.${t}`));
    try {
      await sql`vacuum ${sql.join(tables)}`.execute(this.runtime.db);
    } catch (error) {
      // The data keys are deleted already (the shred itself is done); failing to compact the
      // heap now only delays the physical removal to autovacuum.
      this.logger.warn(
        `vacuum after shred failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
    }
  }
}
