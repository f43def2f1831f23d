import { engineReplicaProvider, mountOfStream, replayable, type ServiceRuntime } from '@coffer/event-store';
import type { EngineReplicaSpec } from '@coffer/event-store';
import { DIRECTORY_EVENT_STORE } from '../directory.di';
import { RECORD_KINDS, RECORD_LOG, type RecordKey, type RecordKind } from '../records/record.events';
import { RecordProjection } from '../records/record.projection';

const STREAM = /^directory-([a-z]+)\/([^/]+)\/(.+)$/;

/** `directory-<kind>/<mount uuid>/<name>` back to the record's key (names may hold "/"). */
export function recordKeyOf(stream: string): RecordKey {
  const match = STREAM.exec(stream);
  const kind = match?.[1];
  if (!match || !RECORD_KINDS.includes(kind as RecordKind))
    throw new Error(`directory replay: unexpected stream ${stream}`);
  return { kind: kind as RecordKind, mountUuid: match[2] as string, name: match[3] as string };
}

/**
 * How a secondary's directory service replays the primary's directory log with its own record
 * projection. Everything the engine stores is replicated in both modes, as Vault's LDAP engines
 * keep nothing in local storage but their write-ahead entries: the config with its bind password,
 * roles with their rotated passwords, library sets, and library accounts with their passwords
 * and check-outs. The passwords stay barrier-encrypted in the log and the read model. There is no
 * in-memory cache of the read model to drop (every read goes to the records table), and every
 * event is projected in both modes, so the fold takes every event (the default `foldable`) and the
 * own log's stream versions equal the rows' after a promotion (what the next append expects).
 */
export function directoryReplica(projection: RecordProjection): EngineReplicaSpec {
  // no attachments: the log holds everything (the kit answers the primary's export with none)
  return {
    replayables: [replayable(RECORD_LOG, projection, (_trx, stream) => recordKeyOf(stream))],
    // a disabled mount's records are purged outside the log (lease.handlers.ts)
    mountOf: mountOfStream,
  };
}

/** The directory service's replica endpoint and promotion fold, for its module's providers. */
export const directoryReplicaProvider = (runtime: ServiceRuntime) =>
  engineReplicaProvider(runtime, DIRECTORY_EVENT_STORE, [RecordProjection], (projection: RecordProjection) =>
    directoryReplica(projection),
  );
