import { randomBytes } from 'node:crypto';
import {
  engineReplicaProvider,
  replayable,
  type AppendedOf,
  type EngineReplicaSpec,
  type ServiceRuntime,
  type ReplayContext,
} from '@coffer/event-store';
import type { ReplicaAttachment } from '@coffer/contracts/replication';
import { CUBBYHOLE_LOG, FLAT_LOG, type FlatAppend } from '../flat/flat.events';
import { KV_EVENT_STORE } from '../kv.di';
import { CubbyholeProjection } from '../flat/cubbyhole.projection';
import { FlatProjection } from '../flat/flat.projection';
import { KvConfigProjection } from '../kv2/kv2-config.projection';
import { KV2_EVENT_TYPES, KV2_LOG, KV_CONFIG_LOG, type Kv2Append } from '../kv2/kv2.events';
import { Kv2Projection } from '../kv2/kv2.projection';
import { MOUNT_PURGE_LOG } from '../mounts/mount.events';
import { MountPurgeProjection } from '../mounts/mount-purge.projection';
import { DataKeyCipher, kv2CustomMetadataLocation, wrapAad } from '../shared/data-keys';
import { KvDb, type KvTrx } from '../shared/kv.table';
import { KvReadFence } from '../shared/read-fence';

type Kv2Events = typeof KV2_EVENT_TYPES;

/** `<prefix><uuid>/<path>` → uuid, path (mount uuids never contain "/"). */
function splitKeyStream(stream: string, prefix: string): { mountUuid: string; path: string } {
  const rest = stream.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (!stream.startsWith(prefix) || slash < 0) throw new Error(`kv replay: unexpected stream ${stream}`);
  return { mountUuid: rest.slice(0, slash), path: rest.slice(slash + 1) };
}

/** The stream of a kv v1 or cubbyhole secret back to its scope (see flatStream). */
function flatScopeOf(stream: string): Pick<FlatAppend, 'kind' | 'scope' | 'path'> {
  if (stream.startsWith('kv/')) {
    const { mountUuid, path } = splitKeyStream(stream, 'kv/');
    return { kind: 'kv', scope: { mountUuid, owner: '' }, path };
  }
  const rest = stream.slice('cubbyhole/'.length);
  const slash = rest.indexOf('/');
  const { mountUuid, path } = splitKeyStream(rest.slice(slash + 1), '');
  return { kind: 'cubbyhole', scope: { mountUuid, owner: rest.slice(0, slash) }, path };
}

/**
 * Cubbyhole is local storage (Vault's `local` mount, its data dies with the token that owns it):
 * a performance secondary keeps its own tokens' cubbyholes and never the primary's (their tokens
 * are not there); a DR secondary takes the primary's tokens, so their cubbyholes too.
 */
const projected = (stream: string, mode: ReplayContext['mode']): boolean =>
  mode === 'dr' || !stream.startsWith('cubbyhole/');

/**
 * A written version's data key as the primary attached it. Missing: the primary had already
 * shredded it (destroy, prune, delete) when it exported, and the event doing so follows in the
 * log; a random key stands in, so the version is as unreadable here as it is there.
 */
const dataKey = (ctx: ReplayContext, keyId: string): Buffer => ctx.attachments.get(keyId) ?? randomBytes(32);

export interface KvReplayDeps {
  db: KvDb;
  dataKeys: DataKeyCipher;
  flat: FlatProjection;
  cubbyhole: CubbyholeProjection;
  kv2: Kv2Projection;
  config: KvConfigProjection;
  purge: MountPurgeProjection;
  fence: Pick<KvReadFence, 'appendStartedOrSettled'>;
}

/**
 * How a secondary's kv service replays the primary's kv log (kept in `kv_replica`, beside kv's
 * own log, which holds what this cluster writes itself: its local mounts and cubbyholes) with its
 * own projections: the append keys rebuilt from stream names, read-model state and the primary's
 * data keys (re-wrapped by this cluster's barrier, so crypto-shredding keeps working here). A
 * promotion folds what was projected into the own log; the data keys stay where the replay put
 * them (the fold appends the events only, the read model holds the rest).
 */
export function kvReplica(d: KvReplayDeps): EngineReplicaSpec {
  /** which of `keys` have a kv v2 key row, as `<uuid>\0<path>`, in one query */
  const existingKeys = async (trx: KvTrx, keys: ReadonlyArray<{ mountUuid: string; path: string }>) => {
    if (keys.length === 0) return new Set<string>();
    const rows = await d.db
      .of(trx)
      .selectFrom('kv2_keys')
      .select(['mount_uuid', 'path'])
      .where('mount_uuid', 'in', [...new Set(keys.map((k) => k.mountUuid))])
      .where('path', 'in', [...new Set(keys.map((k) => k.path))])
      .execute();
    return new Set(rows.map((r) => `${r.mount_uuid}\u0000${r.path}`));
  };
  const kv2Append = (
    stream: string,
    events: readonly AppendedOf<Kv2Events>[],
    ctx: ReplayContext,
    exists: (mountUuid: string, path: string) => boolean,
  ): Kv2Append => {
    const { mountUuid, path } = splitKeyStream(stream, 'kv/');
    const written = events.flatMap((e) => (e.type === 'SecretVersionWritten' ? [e.data] : []));
    const location = kv2CustomMetadataLocation(mountUuid, path);
    return {
      mountUuid,
      path,
      created: !exists(mountUuid, path),
      wrappedKeys: new Map(written.map((w) => [w.keyId, d.dataKeys.wrapKey(w.keyId, dataKey(ctx, w.keyId))])),
      ciphertexts: new Map(written.map((w) => [w.keyId, Buffer.from(w.ciphertext, 'base64')])),
      sealCustomMetadata: (map) =>
        map ? d.dataKeys.encryptValue(Buffer.from(JSON.stringify(map), 'utf8'), location) : null,
    };
  };
  const configExists = async (trx: KvTrx, mountUuid: string) =>
    (await d.db
      .of(trx)
      .selectFrom('kv2_config')
      .select('mount_uuid')
      .where('mount_uuid', '=', mountUuid)
      .executeTakeFirst()) !== undefined;
  return {
    // replayed rows bypass KvEventStore: the read caches must check the log head again
    onChanged: () => d.fence.appendStartedOrSettled(),
    replayables: [
      replayable(
        KV2_LOG,
        d.kv2,
        async (trx, stream, events, ctx): Promise<Kv2Append> => {
          const found = await existingKeys(trx as KvTrx, [splitKeyStream(stream, 'kv/')]);
          return kv2Append(stream, events, ctx, (mountUuid, path) => found.has(`${mountUuid}\u0000${path}`));
        },
        {
          // the kv v2 projection takes a version write with the prune it caused
          joinsAppend: ['SecretVersionsPruned'],
          // a batch of the primary's writes: one query for its keys' rows, then whether each
          // append creates its row follows from the appends before it (a write or a metadata
          // write makes the row, a metadata delete removes it), as one-by-one replay reads it
          keysOf: async (trx, appends, ctx) => {
            const found = await existingKeys(
              trx as KvTrx,
              appends.map((a) => splitKeyStream(a.stream, 'kv/')),
            );
            return appends.map(({ stream, events }) => {
              const key = kv2Append(stream, events, ctx, (mountUuid, path) =>
                found.has(`${mountUuid}\u0000${path}`),
              );
              const id = `${key.mountUuid}\u0000${key.path}`;
              for (const e of events) {
                if (e.type === 'SecretMetadataDeleted') found.delete(id);
                else if (e.type === 'SecretVersionWritten' || e.type === 'SecretMetadataWritten')
                  found.add(id);
              }
              return key;
            });
          },
        },
      ),
      replayable(KV_CONFIG_LOG, d.config, async (trx, stream) => {
        const mountUuid = stream.slice('kv-config/'.length);
        return { mountUuid, created: !(await configExists(trx as KvTrx, mountUuid)) };
      }),
      replayable(FLAT_LOG, d.flat, async (trx, stream, events, ctx): Promise<FlatAppend | null> => {
        if (!projected(stream, ctx.mode)) return null;
        const at = flatScopeOf(stream);
        const row = await d.db
          .of(trx)
          .selectFrom('flat_secrets')
          .select('key_id')
          .where('mount_uuid', '=', at.scope.mountUuid)
          .where('owner', '=', at.scope.owner)
          .where('path', '=', at.path)
          .executeTakeFirst();
        const write = events.find((e) => e.type === 'SecretWritten');
        return {
          ...at,
          previousKeyId: row?.key_id ?? null,
          ...(write?.type === 'SecretWritten'
            ? {
                sealed: {
                  keyId: write.data.keyId,
                  wrappedKey: d.dataKeys.wrapKey(write.data.keyId, dataKey(ctx, write.data.keyId)),
                  ciphertext: Buffer.from(write.data.ciphertext, 'base64'),
                },
              }
            : {}),
        };
      }),
      replayable(CUBBYHOLE_LOG, d.cubbyhole, (_trx, stream, _events, ctx) =>
        projected(stream, ctx.mode) ? stream.slice('cubbyhole/'.length) : null,
      ),
      replayable(MOUNT_PURGE_LOG, d.purge, (_trx, stream) => stream.slice('kv-mount/'.length)),
    ],
    exportAttachments: async (events): Promise<ReplicaAttachment[]> => {
      const keyIds = events.flatMap((e) => {
        const data = e.data as { keyId?: unknown };
        const written = e.type === 'SecretVersionWritten' || e.type === 'SecretWritten';
        return written && typeof data.keyId === 'string' ? [data.keyId] : [];
      });
      if (keyIds.length === 0) return [];
      const rows = await d.db
        .of()
        .selectFrom('data_keys')
        .select(['key_id', 'wrapped'])
        .where('key_id', 'in', keyIds)
        .execute();
      return rows.map((r) => ({
        name: r.key_id,
        aad: wrapAad(r.key_id).toString('base64'),
        sealed: r.wrapped.toString('base64'),
      }));
    },
    foldable: (event, mode) => projected(event.stream, mode),
    // a re-sync of a performance secondary keeps its local mounts' and cubbyholes' data: their
    // events are in the own log, their data keys only in data_keys, which the rebuild leaves in
    // place (the projections keep a key already there over the replay's stand-in), then drops
    // every key no rebuilt version or secret holds: the primary's, which come again attached to
    // its rows, and the stand-ins of shredded keys. A shredded key's row was deleted when it was
    // shredded, so nothing brings it back: its version's event gets a random stand-in, and the
    // destroy, prune, delete or purge after it in the log shreds that again
    rebuildsFromOwnLog: true,
    keptByRebuild: {
      tables: ['data_keys'],
      prune: async (trx) => {
        await d.db
          .of(trx)
          .deleteFrom('data_keys')
          .where(({ and, not, exists, selectFrom }) =>
            and([
              not(
                exists(
                  selectFrom('kv2_versions as v')
                    .select('v.key_id')
                    .whereRef('v.key_id', '=', 'data_keys.key_id'),
                ),
              ),
              not(
                exists(
                  selectFrom('flat_secrets as f')
                    .select('f.key_id')
                    .whereRef('f.key_id', '=', 'data_keys.key_id'),
                ),
              ),
            ]),
          )
          .execute();
      },
    },
  };
}

/** The kv service's replica endpoint and promotion fold, for its module's providers. */
export const kvReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(
    runtime,
    KV_EVENT_STORE,
    [
      KvDb,
      DataKeyCipher,
      FlatProjection,
      CubbyholeProjection,
      Kv2Projection,
      KvConfigProjection,
      MountPurgeProjection,
      KvReadFence,
    ],
    (
      db: KvDb,
      dataKeys: DataKeyCipher,
      flat: FlatProjection,
      cubbyhole: CubbyholeProjection,
      kv2: Kv2Projection,
      config: KvConfigProjection,
      purge: MountPurgeProjection,
      fence: KvReadFence,
    ) => kvReplica({ db, dataKeys, flat, cubbyhole, kv2, config, purge, fence }),
  );
