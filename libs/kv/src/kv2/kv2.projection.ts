import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import {
  AggregateWriter,
  versionAfter,
  type AppendedOf,
  type EventOf,
  type Projection,
} from '@coffer/event-store';
import { KvDb, type KvDatabase, type KvTrx } from '../shared/kv.table';
import { Statement } from '../shared/statement';
import type { KV2_EVENT_TYPES, Kv2Append, SecretVersionWritten } from './kv2.events';

type Kv2Events = typeof KV2_EVENT_TYPES;

/** The append's key plus the stream version after it. */
type Kv2ProjectionContext = Kv2Append & { streamVersion: number };

/**
 * Keeps the kv v2 read model in step with a key's stream, in the append transaction. Erasing a
 * version's data means deleting its data_keys row (and, for tidiness, its ciphertext).
 */
@Injectable()
export class Kv2Projection implements Projection<Kv2Events, void, Kv2Append> {
  /**
   * A new version of an existing key, in one statement (the common write): key row, version row,
   * data key, and the versions (with their data keys) that max_versions pushes out of the window.
   */
  private readonly versionUpdateSql: Statement<{ updated: number }>;
  /** The first version of a key without a row: a plain insert, which a concurrent creator fails. */
  private readonly versionCreateSql: Statement<{ updated: number }>;
  /** Version writes of many keys (a group-commit batch) in one statement: see applyMany. */
  private readonly versionsManySql: Statement<{ updated: number }>;

  constructor(private readonly db: KvDb) {
    // a data key already there is kept: a write's key id is new, but a re-sync rebuilds the read
    // model from the own log with data_keys left in place (kvReplica's keptByRebuild), the key
    // its event needs being the one kept, not the replay's stand-in
    const version = `
      dk as (insert into {schema}.data_keys (key_id, mount_uuid, owner, wrapped) values ($6, $1, '', $7)
             on conflict (key_id) do nothing),
      ver as (insert into {schema}.kv2_versions (mount_uuid, path, version, created_ms, deletion_ms, destroyed, key_id, ciphertext)
              values ($1, $2, $3, $4, $8, false, $6, $9)),
      pruned as (delete from {schema}.kv2_versions where mount_uuid = $1 and path = $2 and version < $10 returning key_id),
      pruned_keys as (delete from {schema}.data_keys where key_id in (select key_id from pruned where key_id is not null))`;
    this.versionUpdateSql = new Statement(
      db.schema,
      `with up as (update {schema}.kv2_keys
                      set current_version = $3, updated_ms = $4, stream_version = $5,
                          oldest_version = greatest(oldest_version, $10)
                    where mount_uuid = $1 and path = $2 returning 1),
       ${version}
       select count(*)::int as updated from up`,
    );
    this.versionCreateSql = new Statement(
      db.schema,
      `with up as (insert into {schema}.kv2_keys (mount_uuid, path, current_version, oldest_version, max_versions,
                      cas_required, delete_version_after, custom_metadata, created_ms, updated_ms, stream_version)
                   values ($1, $2, $3, $10, 0, false, 0, null, $4, $4, $5) returning 1),
       ${version}
       select count(*)::int as updated from up`,
    );
    // bytea travels as base64 text: both drivers (pg, PGlite) pass text arrays alike. One row per
    // key ($1-$7, the key row after the batch's last write of it) and one per version kept ($8-$15).
    this.versionsManySql = new Statement(
      db.schema,
      `with k as (select * from unnest($1::text[], $2::text[], $3::int[], $4::int8[], $5::int[], $6::int[], $7::bool[])
                    as k (mount_uuid, path, version, updated_ms, stream_version, oldest, created)),
       v as (select * from unnest($8::text[], $9::text[], $10::int[], $11::int8[], $12::text[], $13::text[],
                         $14::int8[], $15::text[])
                    as v (mount_uuid, path, version, created_ms, key_id, wrapped, deletion_ms, ciphertext)),
       up as (update {schema}.kv2_keys r
                 set current_version = k.version, updated_ms = k.updated_ms, stream_version = k.stream_version,
                     oldest_version = greatest(r.oldest_version, k.oldest)
                from k
               where not k.created and r.mount_uuid = k.mount_uuid and r.path = k.path collate "C" returning 1),
       ins as (insert into {schema}.kv2_keys (mount_uuid, path, current_version, oldest_version, max_versions,
                  cas_required, delete_version_after, custom_metadata, created_ms, updated_ms, stream_version)
               select mount_uuid, path, version, oldest, 0, false, 0, null, updated_ms, updated_ms, stream_version
                 from k where k.created returning 1),
       dk as (insert into {schema}.data_keys (key_id, mount_uuid, owner, wrapped)
              select key_id, mount_uuid, '', decode(wrapped, 'base64') from v
              on conflict (key_id) do nothing),
       ver as (insert into {schema}.kv2_versions (mount_uuid, path, version, created_ms, deletion_ms, destroyed,
                  key_id, ciphertext)
               select mount_uuid, path, version, created_ms, deletion_ms, false, key_id, decode(ciphertext, 'base64')
                 from v),
       pruned as (delete from {schema}.kv2_versions r using k
                   where r.mount_uuid = k.mount_uuid and r.path = k.path collate "C" and r.version < k.oldest
                  returning r.key_id),
       pruned_keys as (delete from {schema}.data_keys where key_id in (select key_id from pruned where key_id is not null))
       select ((select count(*) from up) + (select count(*) from ins))::int as updated`,
    );
  }

  /** A version write (alone or with its prune) is the one append applyMany takes: keyed by its row. */
  manyKey(key: Kv2Append, events: readonly Kv2EventOf[]): string | undefined {
    return versionWriteOf(events) ? `${key.mountUuid}\u0000${key.path}` : undefined;
  }

  /**
   * The version writes of a batch in one statement: what versionWritten does for each, in order.
   * A hot key's pipelined writes share a batch, so one key may come many times: its row takes the
   * last write, and versions that a later write of the batch prunes are never inserted (the
   * statement's delete cannot see rows its own inserts add; the end state is the same).
   */
  async applyMany(
    trx: KvTrx,
    appends: ReadonlyArray<{ events: AppendedOf<Kv2Events>[]; key: Kv2Append }>,
  ): Promise<void[]> {
    const byKey = new Map<
      string,
      { key: Kv2Append; created: boolean; last: VersionRow; oldest: number; rows: VersionRow[] }
    >();
    for (const { events, key } of appends) {
      const write = versionWriteOf(events);
      if (!write) throw new Error('kv2 projection: applyMany takes version writes only');
      const { written, oldestVersion } = write;
      const wrapped = key.wrappedKeys.get(written.keyId);
      const ciphertext = key.ciphertexts.get(written.keyId);
      if (!wrapped || !ciphertext) throw new Error('kv2 projection: missing data key of a written version');
      const row: VersionRow = { written, streamVersion: versionAfter(events), wrapped, ciphertext };
      const id = `${key.mountUuid}\u0000${key.path}`;
      const group = byKey.get(id);
      if (group) {
        group.last = row;
        group.oldest = Math.max(group.oldest, oldestVersion);
        group.rows.push(row);
      } else {
        byKey.set(id, { key, created: key.created, last: row, oldest: oldestVersion, rows: [row] });
      }
    }
    const keyCols: unknown[][] = Array.from({ length: 7 }, () => []);
    const versionCols: unknown[][] = Array.from({ length: 8 }, () => []);
    for (const { key, created, last, oldest, rows } of byKey.values()) {
      const keyRow = [
        key.mountUuid,
        key.path,
        last.written.version,
        Date.parse(last.written.createdTime),
        last.streamVersion,
        oldest,
        created,
      ];
      keyRow.forEach((v, i) => keyCols[i]?.push(v));
      for (const { written, wrapped, ciphertext } of rows) {
        if (written.version < oldest) continue;
        const versionRow = [
          key.mountUuid,
          key.path,
          written.version,
          Date.parse(written.createdTime),
          written.keyId,
          wrapped.toString('base64'),
          written.deletionTime === null ? null : Date.parse(written.deletionTime),
          ciphertext.toString('base64'),
        ];
        versionRow.forEach((v, i) => versionCols[i]?.push(v));
      }
    }
    const result = await this.versionsManySql.first(trx, [...keyCols, ...versionCols]);
    if (result?.updated !== byKey.size) throw new Error('kv2 projection: a key row to update is missing');
    return appends.map(() => undefined);
  }

  async apply(trx: KvTrx, events: AppendedOf<Kv2Events>[], key: Kv2Append): Promise<void> {
    const ctx: Kv2ProjectionContext = { ...key, streamVersion: versionAfter(events) };
    const write = versionWriteOf(events);
    if (write) return this.versionWritten(trx, ctx, write.written, write.oldestVersion);
    const db = this.db.of(trx);
    let exists = !ctx.created;
    let removed = false;
    for (const event of events) {
      switch (event.type) {
        case 'SecretVersionsPruned':
        case 'SecretVersionWritten':
          // a prune belongs with its version write, unless a batch boundary cut it off (prunedAlone)
          if (event.type === 'SecretVersionsPruned' && events.length === 1) {
            await this.prunedAlone(db, ctx, event.data.oldestVersion);
            break;
          }
          throw new Error(
            `kv2 projection: a version write comes alone or with its prune (got ${events.map((e) => `${e.type}@${e.streamVersion}`).join(', ')})`,
          );
        case 'SecretVersionsDeleted':
        case 'SecretVersionsUndeleted': {
          const deletionMs = event.data.deletionTime === null ? null : Date.parse(event.data.deletionTime);
          await db
            .updateTable('kv2_versions')
            .set({ deletion_ms: deletionMs })
            .where('mount_uuid', '=', ctx.mountUuid)
            .where('path', '=', ctx.path)
            .where('version', 'in', event.data.versions)
            .execute();
          break;
        }
        case 'SecretVersionsDestroyed':
          await this.shred(db, ctx, { versions: event.data.versions });
          await db
            .updateTable('kv2_versions')
            .set({ destroyed: true, key_id: null, ciphertext: null })
            .where('mount_uuid', '=', ctx.mountUuid)
            .where('path', '=', ctx.path)
            .where('version', 'in', event.data.versions)
            .execute();
          break;
        case 'SecretMetadataWritten': {
          const d = event.data;
          const settings = {
            max_versions: d.maxVersions,
            cas_required: d.casRequired,
            delete_version_after: d.deleteVersionAfter,
            custom_metadata: ctx.sealCustomMetadata(d.customMetadata),
          };
          if (exists) {
            await this.keyRow(db, ctx).set(settings).execute();
          } else {
            const at = Date.parse(d.at);
            await db
              .insertInto('kv2_keys')
              .values({
                mount_uuid: ctx.mountUuid,
                path: ctx.path,
                current_version: 0,
                oldest_version: 0,
                ...settings,
                created_ms: at,
                updated_ms: at,
                stream_version: ctx.streamVersion,
              })
              .execute();
            exists = true;
          }
          break;
        }
        case 'SecretMetadataDeleted':
          await this.shred(db, ctx, 'all');
          await db
            .deleteFrom('kv2_versions')
            .where('mount_uuid', '=', ctx.mountUuid)
            .where('path', '=', ctx.path)
            .execute();
          await db
            .deleteFrom('kv2_keys')
            .where('mount_uuid', '=', ctx.mountUuid)
            .where('path', '=', ctx.path)
            .execute();
          exists = false;
          removed = true;
          break;
      }
    }
    if (exists && !removed) await this.keyRow(db, ctx).set({ stream_version: ctx.streamVersion }).execute();
  }

  /**
   * A prune replayed apart from its version write: a promoted cluster's fold appends a stream's
   * events at once, which a follower may receive cut across two batches (a batch of one append
   * cannot end at an append's end). It prunes what the write's statement would have.
   */
  private async prunedAlone(
    db: Kysely<KvDatabase>,
    ctx: Kv2ProjectionContext,
    oldest: number,
  ): Promise<void> {
    const prunedKeys = db
      .selectFrom('kv2_versions')
      .select('key_id')
      .where('mount_uuid', '=', ctx.mountUuid)
      .where('path', '=', ctx.path)
      .where('version', '<', oldest)
      .where('key_id', 'is not', null);
    await db
      .deleteFrom('data_keys')
      .where('key_id', 'in', prunedKeys.$narrowType<{ key_id: string }>())
      .execute();
    await db
      .deleteFrom('kv2_versions')
      .where('mount_uuid', '=', ctx.mountUuid)
      .where('path', '=', ctx.path)
      .where('version', '<', oldest)
      .execute();
    await this.keyRow(db, ctx)
      .set({ oldest_version: sql<number>`greatest(oldest_version, ${oldest})` })
      .execute();
  }

  private keyRow(db: Kysely<KvDatabase>, ctx: Kv2ProjectionContext) {
    return db.updateTable('kv2_keys').where('mount_uuid', '=', ctx.mountUuid).where('path', '=', ctx.path);
  }

  private async versionWritten(
    trx: KvTrx,
    ctx: Kv2ProjectionContext,
    d: SecretVersionWritten,
    oldestVersion: number,
  ): Promise<void> {
    const wrapped = ctx.wrappedKeys.get(d.keyId);
    const ciphertext = ctx.ciphertexts.get(d.keyId);
    if (!wrapped || !ciphertext) throw new Error('kv2 projection: missing data key of a written version');
    const createdMs = Date.parse(d.createdTime);
    const deletionMs = d.deletionTime === null ? null : Date.parse(d.deletionTime);
    const statement = ctx.created ? this.versionCreateSql : this.versionUpdateSql;
    const params = [
      ctx.mountUuid,
      ctx.path,
      d.version,
      createdMs,
      ctx.streamVersion,
      d.keyId,
      wrapped,
      deletionMs,
      ciphertext,
      oldestVersion,
    ];
    const row = await statement.first(trx, params);
    if (row?.updated !== 1) throw new Error('kv2 projection: the key row to update is missing');
  }

  /** Deletes the data keys of the selected versions of the key. */
  private async shred(
    db: Kysely<KvDatabase>,
    ctx: Kv2ProjectionContext,
    selection: 'all' | { versions: number[] },
  ): Promise<void> {
    let keyIds = db
      .selectFrom('kv2_versions')
      .select('key_id')
      .where('mount_uuid', '=', ctx.mountUuid)
      .where('path', '=', ctx.path)
      .where('key_id', 'is not', null);
    if (selection !== 'all') keyIds = keyIds.where('version', 'in', selection.versions);
    await db
      .deleteFrom('data_keys')
      .where('key_id', 'in', keyIds.$narrowType<{ key_id: string }>())
      .execute();
  }
}

type Kv2EventOf = EventOf<Kv2Events>;

/** The common append: one version written, alone or with the prune it causes. */
/** One version write of a batch, as applyMany stores it. */
interface VersionRow {
  written: SecretVersionWritten;
  streamVersion: number;
  wrapped: Buffer;
  ciphertext: Buffer;
}

function versionWriteOf(
  events: readonly Kv2EventOf[],
): { written: SecretVersionWritten; oldestVersion: number } | undefined {
  const [first, second, ...more] = events;
  if (first?.type !== 'SecretVersionWritten' || more.length > 0) return undefined;
  if (second && second.type !== 'SecretVersionsPruned') return undefined;
  return { written: first.data, oldestVersion: second?.data.oldestVersion ?? 0 };
}

/** Every kv v2 key write: `append(kv2Append, expectedVersion, events)`. */
export abstract class Kv2EventLog extends AggregateWriter<Kv2Events, void, Kv2Append> {}
