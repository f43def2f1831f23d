import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import { MOUNTS_STREAM } from '../mounts/mounts.events';
import { NAMESPACES_STREAM } from '../namespaces/namespace.events';
import { REPLICATED_ROWS } from './core-sys-auth.replay';

/** The read-model rows that keep their stream's version, with the stream as SQL over the row `r`. */
const VERSIONED_ROWS: ReadonlyArray<{ table: string; streamOf: string }> = [
  ...REPLICATED_ROWS.filter((r) => r.versioned),
  { table: 'acl_policies', streamOf: `'policy/acl/' || r.name` },
  { table: 'sentinel_policies', streamOf: `'policy/' || r.kind || '/' || r.name` },
];

/** The one-row revisions of the two tables kept as a whole on one stream. */
const REVISIONS: ReadonlyArray<{
  table: 'mount_table_revision' | 'namespace_tree_revision';
  stream: string;
}> = [
  { table: 'mount_table_revision', stream: MOUNTS_STREAM },
  { table: 'namespace_tree_revision', stream: NAMESPACES_STREAM },
];

/** A wipe (secondary/enable, re-sync) starts the replica log over: its fold starts over too. */
export async function resetFold(db: CoreSysDb, trx: CoreSysTrx): Promise<void> {
  await db.of(trx).deleteFrom('replica_folded').execute();
  await db.of(trx).updateTable('replica_fold_position').set({ through_wal: 0 }).where('id', '=', 1).execute();
}

/** The promotion fold's progress and what it reads of this cluster's own log. */
@Injectable()
export class ReplicaFoldRepository {
  constructor(private readonly db: CoreSysDb) {}

  async position(): Promise<number> {
    const row = await this.db
      .of()
      .selectFrom('replica_fold_position')
      .select('through_wal')
      .where('id', '=', 1)
      .executeTakeFirst();
    return Number(row?.through_wal ?? 0);
  }

  /** Moves the position forward (never back: a late retry of an older batch keeps it). */
  async advance(wal: number): Promise<void> {
    await this.db
      .of()
      .updateTable('replica_fold_position')
      .set({ through_wal: sql<number>`greatest(through_wal, ${wal})` })
      .where('id', '=', 1)
      .execute();
  }

  /** The former primary's version each of `streams` was folded up to (no entry: never folded). */
  async folded(streams: readonly string[]): Promise<Map<string, number>> {
    if (streams.length === 0) return new Map();
    const rows = await this.db
      .of()
      .selectFrom('replica_folded')
      .select(['stream', 'version'])
      .where('stream', 'in', streams)
      .execute();
    return new Map(rows.map((r) => [r.stream, r.version]));
  }

  /** In the append's transaction: `stream` is folded up to the former primary's `version`. */
  async markFolded(trx: CoreSysTrx, stream: string, version: number): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('replica_folded')
      .values({ stream, version })
      .onConflict((c) => c.column('stream').doUpdateSet({ version }))
      .execute();
  }

  /** The versions of `streams` in this cluster's own log (absent: never written). */
  async ownVersions(streams: readonly string[]): Promise<Map<string, number>> {
    if (streams.length === 0) return new Map();
    const { rows } = await sql<{ stream: string; version: number | string }>`
      select stream, max(stream_version) as version from ${sql.table(`${this.db.schema}.event_log`)}
       where stream in (${sql.join(streams)}) group by stream`.execute(this.db.pool);
    return new Map(rows.map((r) => [r.stream, Number(r.version)]));
  }

  /**
   * Sets the version of every read-model row of `streams` to its stream's version in this
   * cluster's own log, which is what the next append of the row expects: the replay kept a
   * replicated row at its own version (0 before the fold) and the former primary's ACL and
   * Sentinel policies at theirs. One transaction, and a pure function of the log: run again, it
   * changes nothing.
   */
  async realign(streams: readonly string[]): Promise<void> {
    if (streams.length === 0) return;
    const t = (name: string) => sql.table(`${this.db.schema}.${name}`);
    await this.db.pool.transaction().execute(async (trx) => {
      for (const { table, streamOf } of VERSIONED_ROWS)
        await sql`
          update ${t(table)} as r set version = e.version
            from (select stream, max(stream_version) as version from ${t('event_log')}
                   where stream in (${sql.join(streams)}) group by stream) as e
           where e.stream = ${sql.raw(streamOf)} and r.version <> e.version`.execute(trx);
      for (const { table, stream } of REVISIONS)
        if (streams.includes(stream))
          await sql`
            update ${t(table)} set revision = (select coalesce(max(stream_version), 0)
                                                 from ${t('event_log')} where stream = ${stream})
             where id = 1`.execute(trx);
    });
  }
}
