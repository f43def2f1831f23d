import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import {
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
import { isAuthPath, type MountIds, type MountRecord } from './mount.model';
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
  ) {}

  /** POST sys/mounts/:path or sys/auth/:path. */
  async enable(kind: MountKind, path: string, body: SysMountEnableBody): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const { catalogue, enableBody } = await this.#withPlugin(kind, body);
    const input = enableInputOf(enableBody, kind === 'auth');
    await this.#write((table) => ({
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
  async disable(kind: MountKind, path: string): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    // Vault revokes the mount's leases (and an auth method's tokens) before removing the mount:
    // a failing revocation answers its error and the mount stays.
    const planned = await this.#plannedDisable(kind, path);
    if (planned) {
      // Vault taints the mount first: no new request reaches it while its leases are revoked,
      // and it stays tainted if a revocation fails (a retried unmount finishes the job)
      await this.#write((table) => ({ events: [decideTaint(table, planned.data.uuid)], result: undefined }));
      await this.leases.revokeMountLeasesNow(planned.data.uuid);
      if (planned.type === 'AuthMethodDisabled') await this.revocation.revokeByPathPrefix(planned.data.path);
    }
    const { events } = await this.#write((table) => ({
      events: [kind === 'auth' ? decideDisableAuth(table, path) : decideDisableSecret(table, path)],
      result: undefined,
    }));
    for (const event of events) {
      if (event.type !== 'MountDisabled' && event.type !== 'AuthMethodDisabled') continue;
      if (event.type === 'AuthMethodDisabled') await this.revocation.revokeByPathPrefix(event.data.path);
      await this.runtime.transport.publish(mountDisabled, event.data);
    }
    return { kind: 'injected' };
  }

  async #plannedDisable(kind: MountKind, path: string): Promise<MountEvent | undefined> {
    const table = (await this.repo.snapshot()).mounts;
    return kind === 'auth' ? decideDisableAuth(table, path) : decideDisableSecret(table, path);
  }

  /** POST sys/mounts/:path/tune or sys/auth/:path/tune. */
  async tune(kind: MountKind, path: string, body: SysMountTuneBody): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const routing = kind === 'auth' ? authRoutingPath(path) : path;
    const input = tuneInputOf(body, kind === 'auth' || isAuthPath(routing));
    const { result: warnings } = await this.#write((table) => {
      const decision = decideTune(table, routing, input);
      return { events: [decision.event], result: decision.warnings };
    });
    return { kind: 'injected', warnings };
  }

  /** Creates whichever built-in mounts are missing (init, and after unseal for interrupted inits). */
  async ensureDefaults(): Promise<void> {
    await this.#write((table) => ({
      events: defaultMounts(ids).filter((e) => !table.some((m) => m.path === (e.data as MountRecord).path)),
      result: undefined,
    }));
  }

  /** coreMountTable: every mount, auth methods with their auth/ prefix. */
  async table(): Promise<{ mounts: MountEntry[]; revision: number }> {
    this.seal.assertUnsealed();
    const snapshot = await this.repo.snapshot();
    return { mounts: snapshot.mounts.map(toMountEntry), revision: snapshot.revision };
  }

  /** An auth method by its path ("userpass", "auth/userpass/"...). */
  async authMountByPath(path: string): Promise<MountEntry | undefined> {
    const mount = await this.repo.byPath(authRoutingPath(path));
    return mount ? toMountEntry(mount) : undefined;
  }

  /** An auth method by its accessor ("auth_userpass_1a2b3c4d"). */
  async authMountByAccessor(accessor: string): Promise<MountEntry | undefined> {
    const mount = await this.repo.byAccessor(accessor);
    return mount && isAuthPath(mount.path) ? toMountEntry(mount) : undefined;
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
