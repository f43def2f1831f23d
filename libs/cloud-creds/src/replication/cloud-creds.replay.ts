import {
  engineReplicaProvider,
  mountOfStream,
  replayable,
  type EngineReplicaSpec,
  type ReplayContext,
  type ServiceRuntime,
} from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE } from '../cloud-creds.di';
import {
  CLOUD_A_LOG,
  CLOUD_A_RECORD_KINDS,
  type CloudARecordKey,
} from '../cloud-a/records/cloud-a-record.events';
import { CloudARecordProjection } from '../cloud-a/records/cloud-a-record.projection';
import {
  CLOUD_B_LOG,
  CLOUD_B_RECORD_KINDS,
  type CloudBRecordKey,
} from '../cloud-b/records/cloud-b-record.events';
import { CloudBRecordProjection } from '../cloud-b/records/cloud-b-record.projection';

/**
 * The record kinds Vault keeps local to the cluster that made them (its aws and azure backends'
 * WALs and leases): a credential cloud-a created in Azure, an IAM user cloud-b created. Their
 * lease lives in that cluster's core-sys only, so a performance secondary neither projects nor
 * folds the primary's; a DR secondary takes them (it becomes the primary, leases included).
 */
const LOCAL_STREAM_KINDS: ReadonlySet<string> = new Set(['cloud-a-cred', 'cloud-b-user']);

/** Whether a stream (`cloud-<x>-<kind>/<mount uuid>/<name>`) is a record kept local to its cluster. */
export const isLocalCloudStream = (stream: string): boolean =>
  LOCAL_STREAM_KINDS.has(stream.slice(0, stream.indexOf('/')));

/** `<prefix><kind>/<mount uuid>/<name>` back to the record's key (mount uuids never contain "/"). */
function recordKeyOf<K extends string>(
  stream: string,
  prefix: string,
  kinds: readonly K[],
): { mountUuid: string; kind: K; name: string } {
  const [head = '', mountUuid = '', ...name] = stream.split('/');
  const kind = kinds.find((k) => `${prefix}${k}` === head);
  if (kind === undefined || mountUuid === '' || name.length === 0)
    throw new Error(`cloud-creds replay: unexpected stream ${stream}`);
  return { mountUuid, kind, name: name.join('/') };
}

/** null on a performance secondary for what stays on the primary (see LOCAL_STREAM_KINDS). */
const projectedHere = <K>(stream: string, ctx: ReplayContext, key: K): K | null =>
  ctx.mode === 'performance' && isLocalCloudStream(stream) ? null : key;

/**
 * How a secondary's cloud-creds service replays the primary's log (kept in `cloud_creds_replica`)
 * with the engine's own record projections: a performance secondary takes the mounts' config,
 * lease config and roles (cloud-b's root rotation state included: rotate-root is forwarded, the
 * primary finishes it), a DR secondary everything. Rows are re-sealed by this cluster's barrier
 * (bound to their stream, as the primary's). No in-memory cache to drop (`onChanged`): config
 * and roles are read from the read model on every request, and cloud-a's Azure credential cache
 * is keyed by the connection's content (a replaced secret is a new entry).
 */
export function cloudCredsReplica(d: {
  cloudA: CloudARecordProjection;
  cloudB: CloudBRecordProjection;
}): EngineReplicaSpec {
  return {
    replayables: [
      replayable(CLOUD_A_LOG, d.cloudA, (_trx, stream, _events, ctx) =>
        projectedHere<CloudARecordKey>(stream, ctx, recordKeyOf(stream, 'cloud-a-', CLOUD_A_RECORD_KINDS)),
      ),
      replayable(CLOUD_B_LOG, d.cloudB, (_trx, stream, _events, ctx) =>
        projectedHere<CloudBRecordKey>(stream, ctx, recordKeyOf(stream, 'cloud-b-', CLOUD_B_RECORD_KINDS)),
      ),
    ],
    // exactly what was projected in that mode
    foldable: (event, mode) => mode === 'dr' || !isLocalCloudStream(event.stream),
    // a disabled mount's records are purged outside the log (cloud-lease-backend.ts)
    mountOf: mountOfStream,
  };
}

/** The cloud-creds service's replica endpoint and promotion fold, for its module's providers. */
export const cloudCredsReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(
    runtime,
    CLOUD_CREDS_EVENT_STORE,
    [CloudARecordProjection, CloudBRecordProjection],
    (cloudA: CloudARecordProjection, cloudB: CloudBRecordProjection) => cloudCredsReplica({ cloudA, cloudB }),
  );
