import { Inject, Injectable, Optional } from '@nestjs/common';
import { z } from 'zod';
import {
  invalidRequest,
  notFound,
  type CallerContext,
  type ResponseOf,
  historyContracts as c,
} from '@coffer/contracts';
import { isPluginMount } from '@coffer/contracts/plugins';
import { ROOT_POLICY_NAME } from '@coffer/acl';
import { EventLogReader, type EventStore, type ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE, SERVICE_RUNTIME } from '../core-sys.di';
import { evolveMounts } from '../mounts/mounts.decider';
import { MOUNTS_LOG, MOUNTS_STREAM } from '../mounts/mounts.events';
import { mountRecordSchema, namespaceOf, type MountRecord } from '../mounts/mount.model';
import { mountListing } from '../mounts/mount.view';
import { listKeys, normalisePolicyName, qualifiedPolicyName } from '../policies/policy.decider';
import { POLICY_LOG, policyStream } from '../policies/policy.events';
import { isUsable } from '../tokens/token.decider';
import { lookupData } from '../tokens/token.view';
import { AuthMethodsHistory } from './auth-methods-history.service';
import { PluginHistory } from './plugin-history.service';
import { HistoryAccessIndex } from './history-access-index.service';
import { HistoryEngines } from './history-engines';
import { HistoryFolds } from './history-folds';
import { HistoryIdentity } from './history-identity';
import { HistoryStateRepository } from './history-state.repository';

/** The mount table is folded from its one stream; a snapshot is kept every this many events. */
export const STATE_SNAPSHOT_EVERY = 32;
const mountTableSchema = z.array(mountRecordSchema);
const WAL_AT = /^[0-9]{1,15}$/;
const POLICY_PATH = /^sys\/policies\/acl\/([^/]+)$/;
const TOKEN_PATH = /^auth\/token\/lookup-accessor\/([^/]+)$/;
const ENTITY_PATH = /^identity\/entity\/id\/([^/]+)$/;
const GROUP_PATH = /^identity\/group\/id\/([^/]+)$/;
const KNOWN_PATHS =
  "sys/mounts, sys/auth, sys/policies/acl, sys/policies/acl/<name>, auth/token/lookup-accessor/<accessor>, identity/entity/id/<id>, identity/group/id/<id>, approle, userpass and token roles and users, identity/oidc/* and secrets engines' paths (docs/history.md)";

export interface HistoryInstant {
  /** the last event of the core_sys log at that instant (0 = before the first) */
  wal: number;
  /** when it was recorded */
  recordedAt: Date | undefined;
}

/**
 * GET sys/history/state/:path?at=: what a sys read answered at an instant, rebuilt from the
 * core_sys log (docs/history.md): the mount tables (folded from their stream, from the nearest
 * snapshot) and the ACL policies (their streams' last events then). The answers have the live
 * routes' shapes, for the caller's namespace.
 */
@Injectable()
export class HistoryStateService {
  /** the core_sys schema: the log this history is read from */
  private readonly log: string;
  private readonly clock: () => Date;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: Pick<ServiceRuntime, 'schema' | 'clock'>,
    private readonly reader: EventLogReader,
    private readonly snapshots: HistoryStateRepository,
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
    private readonly folds: HistoryFolds,
    private readonly identity: HistoryIdentity,
    private readonly index: HistoryAccessIndex,
    private readonly authMethods: AuthMethodsHistory,
    /** external plugins' paths, asked of the plugin with a storage of the instant; absent in benchmarks */
    @Optional() private readonly plugins?: PluginHistory,
    /** engines' paths (kv v2), asked over the transport; absent where no transport is wired (benchmarks) */
    @Optional() private readonly engines?: HistoryEngines,
  ) {
    this.log = runtime.schema;
    this.clock = runtime.clock;
  }

  async state(
    path: string,
    at: string | undefined,
    caller: CallerContext,
    query: Record<string, string> = {},
  ): Promise<ResponseOf<typeof c.state>> {
    const instant = await this.instant(at);
    const clean = path.replace(/^\/+|\/+$/g, '');
    const ns = caller.namespace;
    const token = TOKEN_PATH.exec(clean);
    const policy = POLICY_PATH.exec(clean);
    const entity = ENTITY_PATH.exec(clean);
    const group = GROUP_PATH.exec(clean);
    let state: Record<string, unknown>;
    let engine: { wal: number; warnings: string[] } | undefined;
    // a LIST of core-sys's own paths: sys/policies/acl is the one with a history
    const core = clean === 'sys/mounts' || clean === 'sys/auth' || !!(token ?? policy ?? entity ?? group);
    if (query['list'] === 'true' && core) {
      throw invalidRequest(`no history of a LIST of "${clean}": sys/policies/acl has one`);
    }
    if (clean === 'sys/mounts' || clean === 'sys/auth') {
      const mounts = (await this.mountsAt(instant.wal)).filter((m) => namespaceOf(m) === ns);
      state = mountListing(mounts, clean === 'sys/auth');
    } else if (clean === 'sys/policies/acl') {
      state = { keys: await this.policyNamesAt(instant.wal, ns) };
    } else if (policy) {
      state = await this.policyAt(instant.wal, ns, policy[1] ?? '');
    } else if (token) {
      state = await this.tokenLookupAt(instant, at, token[1] ?? '', ns);
    } else if (entity) {
      state = await this.identity.entityAt(
        instant.wal,
        ns,
        entity[1] ?? '',
        await this.mountsAt(instant.wal),
      );
    } else if (group) {
      state = await this.identity.groupAt(instant.wal, ns, group[1] ?? '', await this.mountsAt(instant.wal));
    } else {
      const mounts = await this.mountsAt(instant.wal);
      // auth methods' roles and users: core-sys's own log (auth-methods-history.service.ts)
      const auth = await this.authMethods.stateAt(mounts, clean, ns, instant.wal, query['list'] === 'true');
      if (auth) return this.answer(clean, instant, auth);
      // a path of a secrets engine: the mount then (the cluster's, or the primary's it replicated),
      // then the engine's logs (history-engines.ts)
      const replicated = this.engines ? await this.replicatedMountsAt(this.timeOf(at, instant)) : [];
      const mount = this.engines?.mountOf(mounts, clean, ns, replicated);
      if (mount && this.plugins && isPluginMount(mount)) {
        const past = await this.plugins.stateAt(mount, clean.slice(mount.path.length), query, instant.wal);
        return this.answer(clean, instant, past);
      }
      if (!this.engines || !mount) throw invalidRequest(`no history of "${clean}": ${KNOWN_PATHS} have one`);
      const answer = await this.engines.stateAt(
        mount,
        clean,
        { at, recordedAt: instant.recordedAt },
        query,
        caller,
      );
      state = answer.state;
      engine = { wal: answer.wal, warnings: answer.warnings };
    }
    return this.answer(clean, instant, state, engine);
  }

  private answer(
    path: string,
    instant: HistoryInstant,
    state: Record<string, unknown>,
    engine?: { wal: number; warnings: string[] },
  ): ResponseOf<typeof c.state> {
    return {
      data: {
        path,
        wal: instant.wal,
        recorded_at: instant.recordedAt?.toISOString() ?? null,
        state,
        ...(engine ? { engine_wal: engine.wal } : {}),
      },
      warnings: engine?.warnings ?? [],
    };
  }

  /** LIST sys/history/state/:path: the past LIST's keys also at the top, where a LIST answers them. */
  async stateList(
    path: string,
    at: string | undefined,
    caller: CallerContext,
  ): Promise<ResponseOf<typeof c.stateList>> {
    const answer = await this.state(path, at, caller, { list: 'true' });
    const data = answer.data;
    if (!data) throw notFound();
    const keys = data.state['keys'];
    return {
      ...answer,
      data: {
        ...data,
        keys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [],
      },
    };
  }

  /**
   * `at` as a WAL index of the core_sys log, or an RFC 3339 time: the last event recorded at or
   * before it, found by binary search over the WAL (recorded_at grows with the WAL; replicas'
   * clocks may disagree by a few milliseconds, which moves the answer by as little).
   */
  async instant(at: string | undefined): Promise<HistoryInstant> {
    if (at !== undefined && WAL_AT.test(at)) {
      // the event's time is read beside the head (it is simply absent past the head)
      const wal = Number(at);
      const [head, instant] = await Promise.all([this.reader.head(this.log), this.at(wal)]);
      if (wal > head.lastWal) throw invalidRequest(`at: the log ends at wal ${head.lastWal}`);
      return instant;
    }
    const head = (await this.reader.head(this.log)).lastWal;
    if (at === undefined || at === '') return this.at(head);
    const time = new Date(at);
    if (!/^\d{4}-\d\d-\d\dT/.test(at) || Number.isNaN(time.getTime())) {
      throw invalidRequest('at must be an RFC 3339 time or a WAL index');
    }
    let low = 0;
    let high = head;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      const recorded = await this.reader.recordedAt(this.log, mid);
      if (recorded && recorded.getTime() <= time.getTime()) low = mid;
      else high = mid - 1;
    }
    return this.at(low);
  }

  private async at(wal: number): Promise<HistoryInstant> {
    return { wal, recordedAt: wal === 0 ? undefined : await this.reader.recordedAt(this.log, wal) };
  }

  /** The instant as a time: `at` as given, the time of its event for a WAL index, now when absent. */
  private timeOf(at: string | undefined, instant: HistoryInstant): Date {
    if (at === undefined || at === '') return this.clock();
    if (/^\d{4}-\d\d-\d\dT/.test(at)) return new Date(at);
    return instant.recordedAt ?? new Date(0);
  }

  /**
   * The primary's mount table at `at`, on a secondary (none elsewhere): folded from its
   * `mounts/table` events in the replica log, at their own times. A promotion folds the served
   * table into the own log at the fold's time; before it, this is where the primary's mounts are.
   */
  async replicatedMountsAt(at: Date): Promise<MountRecord[]> {
    let table: MountRecord[] = [];
    for (const event of await this.store.replicatedAt(MOUNTS_STREAM, at)) {
      table = evolveMounts(table, MOUNTS_LOG.decode(event));
    }
    return table;
  }

  /** The mount table (every namespace) as of event `wal`: nearest snapshot, then its events. */
  async mountsAt(wal: number): Promise<MountRecord[]> {
    const version = await this.reader.streamVersionAt(this.log, MOUNTS_STREAM, wal);
    if (version === 0) return [];
    const snapshot = await this.snapshots.nearest(MOUNTS_STREAM, version);
    let table: MountRecord[] = snapshot ? mountTableSchema.parse(JSON.parse(snapshot.state)) : [];
    const from = (snapshot?.version ?? 0) + 1;
    if (from > version) return table;
    for (const event of await this.store.readStream(MOUNTS_STREAM, from)) {
      if (event.streamVersion > version) break;
      table = evolveMounts(table, MOUNTS_LOG.decode(event));
      if (event.streamVersion % STATE_SNAPSHOT_EVERY === 0) {
        await this.snapshots.save(MOUNTS_STREAM, event.streamVersion, JSON.stringify(table));
      }
    }
    return table;
  }

  /**
   * auth/token/lookup-accessor as it answered then (token metadata, never the token): 404 when
   * the token did not exist then, was expired or used up, or belongs to another namespace.
   */
  async tokenLookupAt(
    instant: HistoryInstant,
    at: string | undefined,
    accessor: string,
    ns: string,
  ): Promise<Record<string, unknown>> {
    const token = await this.folds.tokenAt(accessor, instant.wal);
    const nowMs =
      at !== undefined && /^\d{4}-\d\d-\d\dT/.test(at)
        ? Date.parse(at)
        : (instant.recordedAt?.getTime() ?? Date.now());
    if (!token || (token.namespace ?? '') !== ns || !isUsable(token, nowMs)) throw notFound();
    const identity = await this.folds.identityAt(token.entityId, instant.wal);
    return { ...lookupData(token, '', identity.policies, nowMs) };
  }

  /** LIST sys/policies/acl as of event `wal`, in the namespace `ns`. */
  async policyNamesAt(wal: number, ns: string): Promise<string[]> {
    // the access index: each policy stream's last event then, one indexed lookup per policy
    const names = (await this.index.policiesWrittenAt(ns, wal)).filter((n) => !n.includes('/'));
    return listKeys(names);
  }

  /** GET sys/policies/acl/:name as of event `wal` (404 when it did not exist then). */
  async policyAt(wal: number, ns: string, rawName: string): Promise<{ name: string; policy: string }> {
    const name = normalisePolicyName(rawName);
    if (name === ROOT_POLICY_NAME) return { name, policy: '' };
    const stream = policyStream(qualifiedPolicyName(ns, name));
    const version = await this.reader.streamVersionAt(this.log, stream, wal);
    if (version === 0) throw notFound();
    const [last] = await this.store.readStream(stream, version);
    if (!last) throw notFound();
    const event = POLICY_LOG.decode(last);
    if (event.type !== 'PolicyWritten') throw notFound();
    return { name, policy: event.data.policy };
  }
}
