import { Inject, Injectable } from '@nestjs/common';
import {
  engineHistoryState,
  invalidRequest,
  notFound,
  type CallerContext,
  type JsonObject,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { AclService } from '../capabilities/acl.service';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { namespaceOf, type MountRecord } from '../mounts/mount.model';

/**
 * The service that answers `<service>.history.state` for a mount type: only an engine can decode
 * its own log. A type not listed has no history of its paths yet.
 */
const HISTORY_SERVICES: Readonly<Record<string, string>> = {
  kv: 'kv',
  pki: 'pki',
  ssh: 'ssh',
  directory: 'directory',
  'cloud-a': 'cloud-creds',
  'cloud-b': 'cloud-creds',
  // identity/oidc/*: the OIDC provider's objects (the rest of identity/ is core-sys's own)
  identity: 'oidc',
};
const ASK_TIMEOUT_MS = 10_000;
const EPOCH = new Date(0).toISOString();

export interface EngineState {
  state: JsonObject;
  /** the last event of the engine's log folded into the answer */
  wal: number;
  warnings: string[];
}

/** The mount of `mounts` holding `path` (longest prefix) in namespace `ns`. */
function longestMount(mounts: readonly MountRecord[], path: string, ns: string): MountRecord | undefined {
  let best: MountRecord | undefined;
  for (const m of mounts) {
    const oidc = m.type === 'identity' && path.startsWith(`${m.path}oidc/`);
    if ((m.table !== 'secret' && !oidc) || namespaceOf(m) !== ns || !`${path}/`.startsWith(m.path)) continue;
    if (!best || m.path.length > best.path.length) best = m;
  }
  return best;
}

/**
 * sys/history/state/<mount path>/<path>: the mount is the one at that path at the instant (from
 * the mount table then, core-sys's own history, or on a secondary the primary's replicated one);
 * its engine rebuilds the path from its logs (its own, and the primary's events it replicated).
 * Secret values of the past are asked for only when the caller may read the live path now.
 */
@Injectable()
export class HistoryEngines {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'transport'>,
    @Inject(AclService) private readonly acls: Pick<AclService, 'forCaller'>,
  ) {}

  /**
   * The mount `path` is in at the instant (longest prefix, caller namespace), if any: of the
   * cluster's own mount table then, or of the primary's (`replicated`, on a secondary or a cluster
   * promoted from one), whose mount wins at the same path as a secondary serves it (a replicated
   * `local` one only where the cluster has none there: a performance secondary keeps its own).
   */
  mountOf(
    mounts: readonly MountRecord[],
    path: string,
    ns: string,
    replicated: readonly MountRecord[] = [],
  ): MountRecord | undefined {
    const own = longestMount(mounts, path, ns);
    const theirs = longestMount(replicated, path, ns);
    if (!theirs || !own) return theirs ?? own;
    if (theirs.path.length !== own.path.length) return theirs.path.length > own.path.length ? theirs : own;
    return theirs.local ? own : theirs;
  }

  /**
   * `at` as the caller gave it: an RFC 3339 time goes to the engine as is; a WAL index of the
   * core_sys log as the time its event was recorded (the engines' logs are others).
   */
  async stateAt(
    mount: MountRecord,
    path: string,
    instant: { at: string | undefined; recordedAt: Date | undefined },
    query: Record<string, string>,
    caller: CallerContext,
  ): Promise<EngineState> {
    const service = HISTORY_SERVICES[mount.type];
    if (service === undefined) throw invalidRequest(`no history of the paths of ${mount.type} mounts`);
    let at: string | undefined;
    if (instant.at !== undefined && instant.at !== '') {
      at = /^\d{4}-\d\d-\d\dT/.test(instant.at) ? instant.at : (instant.recordedAt?.toISOString() ?? EPOCH);
    }
    const answer = await this.runtime.transport.request(
      engineHistoryState(service),
      {
        mount_uuid: mount.uuid,
        mount_type: mount.type,
        mount_options: mount.options,
        namespace: namespaceOf(mount),
        path: path.slice(mount.path.length),
        query,
        ...(at !== undefined ? { at } : {}),
        values: await this.mayRead(path, caller),
      },
      { timeoutMs: ASK_TIMEOUT_MS },
    );
    if (!answer.found) throw notFound(answer.state, answer.warnings);
    return { state: answer.state ?? {}, wal: answer.wal, warnings: answer.warnings };
  }

  /** The gateway's check of a read of the live path, for the caller now (policies are relative to its token's namespace). */
  private async mayRead(path: string, caller: CallerContext): Promise<boolean> {
    const tokenNs = caller.tokenNamespace ?? '';
    const below = caller.namespace.startsWith(tokenNs) ? caller.namespace.slice(tokenNs.length) : '';
    const capabilities = (await this.acls.forCaller(caller)).capabilities(below + path);
    return capabilities.includes('root') || capabilities.includes('read');
  }
}
