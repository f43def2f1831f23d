import { Injectable, Logger } from '@nestjs/common';
import { context, type Context } from '@opentelemetry/api';
import { sql } from 'kysely';
import { inBatchSpan } from '@coffer/event-store';
import { CoalescedRunner } from './coalesced-runner';
import { KvDb, SHREDDED_TABLES } from './kv.table';

/**
 * After a shred (destroy, metadata delete, cubbyhole destruction, mount purge) the deleted
 * data-key rows are dead tuples, still in the heap, until vacuumed. VACUUM prunes them at once
 * rather than whenever autovacuum comes by, so their space is reused. Postgres does not zero
 * freed space: bytes of a wrapped key can linger in a page's free space and in WAL segments until
 * overwritten or recycled; they are barrier ciphertext, and no live row references them.
 * VACUUM cannot run in a transaction and serialises per table, so requests are coalesced; a run
 * is traced as batch work, linked to the requests it serves.
 */
@Injectable()
export class Vacuum {
  private readonly logger = new Logger('kv.vacuum');
  private readonly runner = new CoalescedRunner(() => this.vacuum());
  /** trace contexts of the requests the next run serves */
  private waiting: Context[] = [];

  constructor(private readonly db: KvDb) {}

  /** Resolves once a vacuum that started after this call has finished (it never rejects). */
  request(): Promise<void> {
    this.waiting.push(context.active());
    return this.runner.request();
  }

  private async vacuum(): Promise<void> {
    const tables = SHREDDED_TABLES.map((t) => sql.table(`${this.db.schema}.${t}`));
    const served = this.waiting;
    this.waiting = [];
    try {
      await inBatchSpan('kv vacuum', served, {}, () => sql`vacuum ${sql.join(tables)}`.execute(this.db.pool));
    } catch (error) {
      // The data keys are deleted already (the shred itself is done); failing to compact the
      // heap now only delays the physical removal to autovacuum.
      this.logger.warn(
        `vacuum after shred failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
    }
  }
}
