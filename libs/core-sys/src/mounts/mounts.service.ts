import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  invalidRequest,
  invalidation,
  mountDisabled,
  sysContracts,
  sysMountEnableBody,
  type ResponseOf,
  type MountCatalogue,
  type MountEntry,
  type SysMountEnableBody,
  type SysMountTuneBody,
} from '@coffer/contracts';
import { PLUGIN_VERSION_OPTION } from '@coffer/contracts/plugins';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
import { PluginCatalogService } from '../plugins/plugin-catalog.service';
import { SealService } from '../seal/seal.service';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import { LeaseService } from '../leases/lease.service';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { isAuthPath, namespaceOf, type MountIds, type MountRecord } from './mount.model';
import { toMountEntry } from './mount.view';
import {
  authRoutingPath,
  decideDisableAuth,
  decideDisableSecret,
  decideEnableAuth,
  decideEnableSecret,
  decideTune,
  decideTaint,
  defaultMounts,
  enableInputOf,
  tuneInputOf,
} from './mounts.decider';
import type { MountEvent } from './mounts.events';
import { MountsEventLog } from './mounts.projection';
import { MountsRepository } from './mounts.repository';

export type MountKind = 'secret' | 'auth';

/** Enable, disable and tune answer no data (status and warnings), for mounts and auth alike. */
type NoDataResponse = ResponseOf<typeof sysContracts.mountEnable>;

/** The mounts of one namespace. */
export function inNamespace(table: readonly MountRecord[], namespace: string): MountRecord[] {
  return table.filter((m) => namespaceOf(m) === namespace);
}

const ids: MountIds = { uuid: () => randomUUID(), suffix: () => randomBytes(4).toString('hex') };

interface Decision<T> {
  events: (MountEvent | undefined)[];
  result: T;
}

/**
 * The mount table: enabling, tuning and disabling secrets engines and auth methods, and the
 * lookups other aggregates and services need. Every change is one append to `mounts/table`
 * decided against the whole current table, then an `invalidation` {kind:'mounts'} broadcast.
 */
@Injectable()
export class MountsService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: MountsRepository,
    private readonly seal: SealService,
    @Inject(TokenRevocationService)
    private readonly revocation: Pick<TokenRevocationService, 'revokeByPathPrefix'>,
    private readonly log: MountsEventLog,
    @Inject(LeaseService) private readonly leases: Pick<LeaseService, 'revokeMountLeasesNow'>,
    @Inject(CORE_SYS_OPTIONS) private readonly options: Pick<CoreSysOptions, 'mountCatalogue'>,
    @Inject(PluginCatalogService) private readonly plugins: Pick<PluginCatalogService, 'prepareMount'>,
    @Inject(NamespaceRepository) private readonly namespaces: Pick<NamespaceRepository, 'exists'>,
  ) {}

  /** POST sys/mounts/:path or sys/auth/:path. */
  async enable(
    kind: MountKind,
    path: string,
    body: SysMountEnableBody,
    namespace = '',
  ): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const { catalogue, enableBody } = await this.#withPlugin(kind, body);
    const input = enableInputOf(enableBody, kind === 'auth');
    if (kind === 'secret') await this.#refuseNamespaceShadowing(namespace, path);
    await this.#writeIn(namespace, (table) => ({
      events: [
        kind === 'auth'
          ? decideEnableAuth(table, path, input, ids, catalogue)
          : decideEnableSecret(table, path, input, ids, catalogue),
      ],
      result: undefined,
    }));
    return { kind: 'injected' };
  }

  /**
   * A type no engine serves may be an external plugin of the catalog: it then becomes mountable
   * (its binary checked first) and the mount is marked with the plugin version it runs.
   */
  async #withPlugin(
    kind: MountKind,
    body: SysMountEnableBody,
  ): Promise<{ catalogue: MountCatalogue; enableBody: SysMountEnableBody }> {
    const catalogue = this.options.mountCatalogue;
    if (kind !== 'secret' || body.type === '' || catalogue.has(body.type))
      return { catalogue, enableBody: body };
    const plugin = await this.plugins.prepareMount(body.type, body.plugin_version || undefined);
    if (!plugin) return { catalogue, enableBody: body };
    return {
      catalogue: new Map([...catalogue, [body.type, plugin.entry]]),
      enableBody: { ...body, options: { ...body.options, [PLUGIN_VERSION_OPTION]: plugin.version } },
    };
  }

  /** A secrets engine enabled by the service itself (dev mode's secret/). */
  async enableSecretEngine(path: string, body: Record<string, unknown>): Promise<void> {
    await this.enable('secret', path, sysMountEnableBody.parse(body));
  }

  /**
   * DELETE sys/mounts/:path or sys/auth/:path. The engine's service purges the mount's data on
   * the mountDisabled broadcast; tokens issued through a disabled auth method are revoked.
   */
  async disable(kind: MountKind, path: string, namespace = ''): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    // Vault revokes the mount's leases (and an auth method's tokens) before removing the mount:
    // a failing revocation answers its error and the mount stays.
    const planned = await this.#plannedDisable(kind, path, namespace);
    if (planned) {
      // Vault taints the mount first: no new request reaches it while its leases are revoked,
      // and it stays tainted if a revocation fails (a retried unmount finishes the job)
      await this.#write((table) => ({ events: [decideTaint(table, planned.data.uuid)], result: undefined }));
      await this.leases.revokeMountLeasesNow(planned.data.uuid);
      if (planned.type === 'AuthMethodDisabled')
        await this.revocation.revokeByPathPrefix(planned.data.path, namespace);
    }
    const { events } = await this.#writeIn(namespace, (table) => ({
      events: [kind === 'auth' ? decideDisableAuth(table, path) : decideDisableSecret(table, path)],
      result: undefined,
    }));
    for (const event of events) {
      if (event.type !== 'MountDisabled' && event.type !== 'AuthMethodDisabled') continue;
      if (event.type === 'AuthMethodDisabled')
        await this.revocation.revokeByPathPrefix(event.data.path, namespace);
      await this.runtime.transport.publish(mountDisabled, event.data);
    }
    return { kind: 'injected' };
  }

  async #plannedDisable(kind: MountKind, path: string, namespace: string): Promise<MountEvent | undefined> {
    const table = inNamespace((await this.repo.snapshot()).mounts, namespace);
    return kind === 'auth' ? decideDisableAuth(table, path) : decideDisableSecret(table, path);
  }

  /** POST sys/mounts/:path/tune or sys/auth/:path/tune. */
  async tune(kind: MountKind, path: string, body: SysMountTuneBody, namespace = ''): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const routing = kind === 'auth' ? authRoutingPath(path) : path;
    const input = tuneInputOf(body, kind === 'auth' || isAuthPath(routing));
    const { result: warnings } = await this.#writeIn(namespace, (table) => {
      const decision = decideTune(table, routing, input);
      return { events: [decision.event], result: decision.warnings };
    });
    return { kind: 'injected', warnings };
  }

  /** Creates whichever built-in mounts are missing (init, and after unseal for interrupted inits). */
  async ensureDefaults(namespace = ''): Promise<void> {
    await this.#writeIn(namespace, (table) => ({
      events: defaultMounts(ids).filter((e) => !table.some((m) => m.path === (e.data as MountRecord).path)),
      result: undefined,
    }));
  }

  /** The mounts of one namespace (paths relative to it). */
  async namespaceMounts(namespace: string): Promise<MountRecord[]> {
    return inNamespace((await this.repo.snapshot()).mounts, namespace);
  }

  /** Deleting a namespace: every mount of it refuses requests from now on. */
  async taintNamespace(namespace: string): Promise<void> {
    await this.#writeIn(namespace, (table) => ({
      events: table.filter((m) => m.tainted !== true).map((m) => decideTaint(table, m.uuid)),
      result: undefined,
    }));
  }

  /**
   * Deleting a namespace, once its leases and tokens are revoked: every mount of it is removed,
   * and its engine purges its data on the mountDisabled broadcast.
   */
  async removeNamespaceMounts(namespace: string): Promise<void> {
    const { events } = await this.#writeIn(namespace, (table) => ({
      events: table.map((m): MountEvent => ({
        type: isAuthPath(m.path) ? 'AuthMethodDisabled' : 'MountDisabled',
        data: { uuid: m.uuid, path: m.path, type: m.type },
      })),
      result: undefined,
    }));
    for (const event of events) {
      if (event.type === 'MountDisabled' || event.type === 'AuthMethodDisabled')
        await this.runtime.transport.publish(mountDisabled, event.data);
    }
  }

  /** A secrets engine path must not start with the name of a child namespace (it would shadow it). */
  async #refuseNamespaceShadowing(namespace: string, path: string): Promise<void> {
    const first = path.replace(/^\/+/, '').split('/')[0] ?? '';
    if (first === '') return;
    if (await this.namespaces.exists(`${namespace}${first}/`))
      throw invalidRequest(`path is already in use at ${first}/`);
  }

  /** coreMountTable: every mount, auth methods with their auth/ prefix. */
  async table(): Promise<{ mounts: MountEntry[]; revision: number }> {
    this.seal.assertUnsealed();
    const snapshot = await this.repo.snapshot();
    return { mounts: snapshot.mounts.map(toMountEntry), revision: snapshot.revision };
  }

  /** An auth method by its path ("userpass", "auth/userpass/"...). */
  async authMountByPath(path: string, namespace = ''): Promise<MountEntry | undefined> {
    const mount = await this.repo.byPath(authRoutingPath(path), namespace);
    return mount ? toMountEntry(mount) : undefined;
  }

  /** An auth method by its accessor ("auth_userpass_1a2b3c4d"). */
  async authMountByAccessor(accessor: string): Promise<MountEntry | undefined> {
    const mount = await this.repo.byAccessor(accessor);
    return mount && isAuthPath(mount.path) ? toMountEntry(mount) : undefined;
  }

  /**
   * One change decided against the whole table (every namespace), appended at the revision read
   * and broadcast (sys/remount: the caller's namespace alone does not bound a move).
   */
  async decideOnTable(
    decide: (table: readonly MountRecord[]) => MountEvent | undefined,
  ): Promise<MountEvent[]> {
    const { events } = await this.#write((table) => ({ events: [decide(table)], result: undefined }));
    return events;
  }

  /**
   * #write on the mounts of one namespace: the decider sees them with their relative paths only,
   * and the mounts it enables belong to the namespace.
   */
  #writeIn<T>(
    namespace: string,
    decide: (table: readonly MountRecord[]) => Decision<T>,
  ): Promise<{ events: MountEvent[]; result: T }> {
    return this.#write((table) => {
      const decision = decide(inNamespace(table, namespace));
      if (namespace === '') return decision;
      const events = decision.events.map((e) =>
        e && (e.type === 'MountEnabled' || e.type === 'AuthMethodEnabled')
          ? { ...e, data: { ...e.data, namespace } }
          : e,
      );
      return { events, result: decision.result };
    });
  }

  /** Read the table, decide, append at the revision read; again on a concurrent change. */
  async #write<T>(
    decide: (table: readonly MountRecord[]) => Decision<T>,
  ): Promise<{ events: MountEvent[]; result: T }> {
    const outcome = await retryOnConflict(async () => {
      const snapshot = await this.repo.snapshot();
      const decision = decide(snapshot.mounts);
      const events = decision.events.filter((e): e is MountEvent => e !== undefined);
      if (events.length > 0) await this.log.append(undefined, snapshot.revision, events);
      return { events, result: decision.result };
    });
    if (outcome.events.length > 0) {
      await this.runtime.transport.publish(invalidation, { kind: 'mounts', keys: [] });
    }
    return outcome;
  }
}
