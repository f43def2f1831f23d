import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { listChildren } from '../shared/listing';
import { ReadBatcher } from '../shared/read-batcher';
import { KvReadFence } from '../shared/read-fence';
import { StreamCache } from '../shared/stream-cache';
import { kvKeyStream } from '../shared/streams';
import { Statement } from '../shared/statement';
import {
  KvDb,
  type DataKeysTable,
  type Kv2ConfigTable,
  type Kv2KeysTable,
  type Kv2VersionsTable,
} from '../shared/kv.table';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from './kv2.state';

type Nullable<T> = { [K in keyof T]: T[K] | null };

/** A key's metadata row (custom metadata still barrier-encrypted). */
export type KeyRow = Omit<Kv2KeysTable, 'mount_uuid' | 'path'>;

export type VersionRow = Pick<Kv2VersionsTable, 'version' | 'created_ms' | 'deletion_ms' | 'destroyed'>;

/** One version with what it takes to decrypt it: the hot read path, one indexed select. */
export type VersionReadRow = KeyRow &
  Nullable<Pick<Kv2VersionsTable, 'version' | 'deletion_ms' | 'destroyed' | 'key_id' | 'ciphertext'>> & {
    v_created_ms: Kv2VersionsTable['created_ms'] | null;
    wrapped: DataKeysTable['wrapped'] | null;
  };

export interface DecisionRows {
  config: EngineConfig;
  configStreamVersion: number | null;
  key: KeyRow | null;
  versions: VersionRow[];
}

const KEY_COLUMNS = `k.current_version, k.oldest_version, k.max_versions, k.cas_required, k.delete_version_after,
  k.custom_metadata, k.created_ms, k.updated_ms, k.stream_version`;

/** The decision query's rows: config columns (c_*), key columns, one version's columns. */
type DecisionJoinRow = Nullable<KeyRow> &
  Nullable<Pick<Kv2VersionsTable, 'version' | 'deletion_ms' | 'destroyed'>> & {
    [K in keyof Omit<Kv2ConfigTable, 'mount_uuid'> as `c_${K}`]: Kv2ConfigTable[K] | null;
  } & { v_created_ms: Kv2VersionsTable['created_ms'] | null };

interface VersionKey {
  mountUuid: string;
  path: string;
  version: number;
}

/** `i`: the 1-based position of the lookup in the batch. */
type BatchedVersionRow = VersionReadRow & { i: number };
type BatchedDecisionRow = DecisionJoinRow & { i: number };

interface KeyRef {
  mountUuid: string;
  path: string;
}

/** Reads of the kv v2 read model (writes are in Kv2Projection, inside the append transaction). */
@Injectable()
export class Kv2Repository {
  /**
   * The hot read path: one indexed select returns the version, its key's metadata and its data
   * key, for every read of an event-loop turn at once (the lookups arrive as parallel arrays).
   */
  private readonly readVersionsSql: Statement<BatchedVersionRow>;
  private readonly versionReads: ReadBatcher<VersionKey, VersionReadRow>;
  /**
   * Everything a decision needs in one round trip: engine config, key row and version rows, for
   * every write decided in an event-loop turn at once (as the reads, see ReadBatcher).
   */
  private readonly decisionSql: Statement<BatchedDecisionRow>;
  private readonly decisionReads: ReadBatcher<KeyRef, BatchedDecisionRow[]>;
  /** versions by key stream and version asked for (0: current), coherent through KvReadFence */
  private readonly versionCache: StreamCache<VersionReadRow>;

  constructor(
    private readonly db: KvDb,
    fence: KvReadFence,
  ) {
    this.versionCache = new StreamCache(
      fence,
      (row) =>
        (row.ciphertext?.length ?? 0) + (row.wrapped?.length ?? 0) + (row.custom_metadata?.length ?? 0),
    );
    this.readVersionsSql = new Statement(
      db.schema,
      `select q.i::int as i, ${KEY_COLUMNS}, v.version, v.created_ms as v_created_ms, v.deletion_ms, v.destroyed, v.key_id, v.ciphertext, d.wrapped
         from unnest($1::text[], $2::text[], $3::int[]) with ordinality as q (mount_uuid, path, version, i)
         join {schema}.kv2_keys k on k.mount_uuid = q.mount_uuid and k.path = q.path collate "C"
         left join {schema}.kv2_versions v
           on v.mount_uuid = k.mount_uuid and v.path = k.path
          and v.version = (case when q.version > 0 then q.version else k.current_version end)
         left join {schema}.data_keys d on d.key_id = v.key_id`,
    );
    this.versionReads = new ReadBatcher((keys) => this.readVersions(keys));
    this.decisionSql = new Statement(
      db.schema,
      `select q.i::int as i, c.max_versions as c_max_versions, c.cas_required as c_cas_required,
              c.delete_version_after as c_delete_version_after, c.stream_version as c_stream_version,
              ${KEY_COLUMNS}, v.version, v.created_ms as v_created_ms, v.deletion_ms, v.destroyed
         from unnest($1::text[], $2::text[]) with ordinality as q (mount_uuid, path, i)
         left join {schema}.kv2_config c on c.mount_uuid = q.mount_uuid
         left join {schema}.kv2_keys k on k.mount_uuid = q.mount_uuid and k.path = q.path collate "C"
         left join {schema}.kv2_versions v on v.mount_uuid = k.mount_uuid and v.path = k.path
        order by q.i, v.version`,
    );
    this.decisionReads = new ReadBatcher((keys) => this.loadDecisionRows(keys), 256, 'kv decision batch', {
      oneInFlight: true,
    });
  }

  /** The given version (0 = current) of a key, its metadata and its wrapped data key. */
  async readVersion(mountUuid: string, path: string, version: number): Promise<VersionReadRow | undefined> {
    return this.versionCache.read(kvKeyStream(mountUuid, path), String(version), () =>
      this.versionReads.read({ mountUuid, path, version }),
    );
  }

  private async readVersions(keys: readonly VersionKey[]): Promise<Array<VersionReadRow | undefined>> {
    const rows = await this.readVersionsSql.rows(this.db.pool, [
      keys.map((k) => k.mountUuid),
      keys.map((k) => k.path),
      keys.map((k) => k.version),
    ]);
    const out: Array<VersionReadRow | undefined> = new Array<undefined>(keys.length);
    for (const { i, ...row } of rows) out[i - 1] = row;
    return out;
  }

  private async loadDecisionRows(keys: readonly KeyRef[]): Promise<BatchedDecisionRow[][]> {
    // a hot key comes many times in a batch (its writers and their existence checks): read it once
    const unique = new Map<string, number>();
    const distinct: KeyRef[] = [];
    const refs = keys.map((k) => {
      const id = `${k.mountUuid}\u0000${k.path}`;
      let at = unique.get(id);
      if (at === undefined) {
        unique.set(id, (at = distinct.length));
        distinct.push(k);
      }
      return at;
    });
    const rows = await this.decisionSql.rows(this.db.pool, [
      distinct.map((k) => k.mountUuid),
      distinct.map((k) => k.path),
    ]);
    const byKey = distinct.map((): BatchedDecisionRow[] => []);
    for (const row of rows) byKey[row.i - 1]?.push(row);
    return refs.map((at) => byKey[at] ?? []);
  }

  async loadForDecision(mountUuid: string, path: string): Promise<DecisionRows> {
    const rows = (await this.decisionReads.read({ mountUuid, path })) ?? [];
    const first = rows[0];
    if (!first) throw new Error('kv2 decision query returned no row');
    const config: EngineConfig =
      first.c_stream_version === null
        ? { ...DEFAULT_ENGINE_CONFIG }
        : {
            maxVersions: first.c_max_versions ?? 0,
            casRequired: first.c_cas_required ?? false,
            deleteVersionAfter: first.c_delete_version_after ?? 0,
          };
    const key: KeyRow | null =
      first.stream_version === null
        ? null
        : {
            current_version: first.current_version ?? 0,
            oldest_version: first.oldest_version ?? 0,
            max_versions: first.max_versions ?? 0,
            cas_required: first.cas_required ?? false,
            delete_version_after: first.delete_version_after ?? 0,
            custom_metadata: first.custom_metadata,
            created_ms: first.created_ms ?? 0,
            updated_ms: first.updated_ms ?? 0,
            stream_version: first.stream_version,
          };
    const versions: VersionRow[] = [];
    for (const r of rows) {
      if (r.version === null) continue;
      versions.push({
        version: r.version,
        created_ms: r.v_created_ms ?? 0,
        deletion_ms: r.deletion_ms,
        destroyed: r.destroyed ?? false,
      });
    }
    return { config, configStreamVersion: first.c_stream_version, key, versions };
  }

  async loadConfig(mountUuid: string): Promise<{ config: EngineConfig; streamVersion: number | null }> {
    const row = await this.db
      .of()
      .selectFrom('kv2_config')
      .select(['max_versions', 'cas_required', 'delete_version_after', 'stream_version'])
      .where('mount_uuid', '=', mountUuid)
      .executeTakeFirst();
    if (!row) return { config: { ...DEFAULT_ENGINE_CONFIG }, streamVersion: null };
    return {
      config: {
        maxVersions: row.max_versions,
        casRequired: row.cas_required,
        deleteVersionAfter: row.delete_version_after,
      },
      streamVersion: row.stream_version,
    };
  }

  /** The gateway's existence check before a write: batched with the writes' decision loads. */
  async keyExists(mountUuid: string, path: string): Promise<boolean> {
    const rows = await this.decisionReads.read({ mountUuid, path });
    return rows?.[0]?.stream_version !== null && rows?.[0]?.stream_version !== undefined;
  }

  /**
   * A version's barrier-wrapped data key, while it exists: destroy, prune and metadata delete
   * erase it, which is what keeps their data unreadable in history too.
   */
  async wrappedKey(keyId: string): Promise<Buffer | undefined> {
    const row = await this.db
      .of()
      .selectFrom('data_keys')
      .select('wrapped')
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return row?.wrapped;
  }

  /** Names (and sub-folders, ending in "/") of the keys directly in `folder`. */
  async list(mountUuid: string, folder: string): Promise<string[]> {
    return listChildren(this.db.pool, `${this.db.schema}.kv2_keys`, sql`t.mount_uuid = ${mountUuid}`, folder);
  }
}
