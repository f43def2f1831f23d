import { Injectable } from '@nestjs/common';
import { chainHash, GENESIS_HASH } from '@coffer/event-store';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { SourceHead } from '../wal/merkle';
import { ReplicationDb } from '../replication.table';
import type { WireEvent } from './stream.wire';

/** Why a batch was refused: the stream must restart from the recorded position. */
export class ReplicaApplyError extends Error {}

/** SQL of a secondary's copy of the primary's logs. */
@Injectable()
export class ReplicaLogRepository {
  constructor(private readonly db: ReplicationDb) {}

  async positions(mode: ReplicationMode): Promise<SourceHead[]> {
    const rows = await this.db
      .of()
      .selectFrom('replica_positions')
      .select(['source', 'last_wal', 'hash'])
      .where('mode', '=', mode)
      .orderBy('source')
      .execute();
    return rows.map((r) => ({ source: r.source, lastWal: r.last_wal, hash: r.hash }));
  }

  /**
   * Applies one batch of a source's events, in order, in one transaction that also moves the
   * recorded position: a row at or below the position was applied before (redelivery after a
   * reconnect) and is skipped; the next row must be position + 1 and continue the hash chain.
   * Returns the new position.
   */
  async apply(mode: ReplicationMode, source: string, events: readonly WireEvent[]): Promise<SourceHead> {
    return this.db.pool.transaction().execute(async (trx) => {
      const db = this.db.of(trx);
      const current = await db
        .selectFrom('replica_positions')
        .select(['last_wal', 'hash'])
        .where('mode', '=', mode)
        .where('source', '=', source)
        .forUpdate()
        .executeTakeFirst();
      let lastWal = current?.last_wal ?? 0;
      let hash = current?.hash ?? GENESIS_HASH;
      const rows = [];
      for (const e of events) {
        if (e.wal <= lastWal) continue;
        if (e.wal !== lastWal + 1)
          throw new ReplicaApplyError(`${source}: expected wal ${lastWal + 1}, got ${e.wal}`);
        const payload = Buffer.from(e.payload, 'base64');
        // A filtered row carries no payload to hash: its hash is taken as sent (the TLS-PSK
        // connection authenticates the primary); the next full row checks the chain again.
        if (e.filtered !== true && chainHash(hash, { ...e, payload }) !== e.hash)
          throw new ReplicaApplyError(`${source}: hash chain broken at wal ${e.wal}`);
        rows.push({
          mode,
          source,
          wal: e.wal,
          stream: e.stream,
          stream_version: e.streamVersion,
          type: e.type,
          schema_version: e.schemaVersion,
          payload,
          recorded_at: new Date(e.recordedAt),
          hash: e.hash,
        });
        lastWal = e.wal;
        hash = e.hash;
      }
      if (rows.length === 0) return { source, lastWal, hash };
      for (let i = 0; i < rows.length; i += 500)
        await db
          .insertInto('replica_log')
          .values(rows.slice(i, i + 500))
          .execute();
      if (current) {
        await db
          .updateTable('replica_positions')
          .set({ last_wal: lastWal, hash })
          .where('mode', '=', mode)
          .where('source', '=', source)
          .execute();
      } else {
        await db.insertInto('replica_positions').values({ mode, source, last_wal: lastWal, hash }).execute();
      }
      return { source, lastWal, hash };
    });
  }

  /** Clears a mode's copy (a secondary enabled anew starts from an empty storage). */
  async wipe(mode: ReplicationMode): Promise<void> {
    await this.db.pool.transaction().execute(async (trx) => {
      await this.db.of(trx).deleteFrom('replica_log').where('mode', '=', mode).execute();
      await this.db.of(trx).deleteFrom('replica_positions').where('mode', '=', mode).execute();
    });
  }

  /** Clears one source's copy (its log diverged from the primary's: it is streamed again). */
  async wipeSource(mode: ReplicationMode, source: string): Promise<void> {
    await this.db.pool.transaction().execute(async (trx) => {
      await this.db
        .of(trx)
        .deleteFrom('replica_log')
        .where('mode', '=', mode)
        .where('source', '=', source)
        .execute();
      await this.db
        .of(trx)
        .deleteFrom('replica_positions')
        .where('mode', '=', mode)
        .where('source', '=', source)
        .execute();
    });
  }

  /** A source's copied rows after `afterWal` (a promoted secondary reads them back). */
  async read(mode: ReplicationMode, source: string, afterWal: number, limit: number) {
    return this.db
      .of()
      .selectFrom('replica_log')
      .selectAll()
      .where('mode', '=', mode)
      .where('source', '=', source)
      .where('wal', '>', afterWal)
      .orderBy('wal')
      .limit(limit)
      .execute();
  }
}
