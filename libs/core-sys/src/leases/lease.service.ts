import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  coreLeaseRegister,
  engineLeaseContracts,
  invalidRequest,
  isDomainError,
  leaseContracts,
  type CallerContext,
  type ContractRequest,
  type ContractResponse,
  type MountInfo,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import {
  assertRenewable,
  childKeys,
  decideIssue,
  decideRenew,
  decideRevocationFailure,
  DEFAULT_REVOCATION_POLICY,
  invalidLease,
  irrevocableLimit,
  leaseIdRequired,
  lookupView,
  MAX_IRREVOCABLE_WARNING,
  prefixDirectory,
  type LeaseState,
  type RevocationPolicy,
  leaseIdFor,
  leaseRequestPath,
} from './lease.decider';
import { MountsRepository } from '../mounts/mounts.repository';
import { NamespaceRepository } from '../namespaces/namespace.repository';
import { LeaseEventLog } from './lease.projection';
import { LeaseRepository } from './lease.repository';

type Req<K extends keyof typeof leaseContracts> = RequestOf<(typeof leaseContracts)[K]>;
type Res<K extends keyof typeof leaseContracts> = ResponseOf<(typeof leaseContracts)[K]>;

export const LEASE_REVOCATION_POLICY = Symbol('LEASE_REVOCATION_POLICY');
export { DEFAULT_REVOCATION_POLICY };

/** How long core-sys waits for an engine's renew or revoke. */
const ENGINE_TIMEOUT_MS = 10_000;
const TIDY_WARNING =
  "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.";

/** Vault's lease id random part: 24 base62 characters. */
function randomLeaseSuffix(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  while (out.length < 24) {
    for (const b of randomBytes(32)) if (b < 248 && out.length < 24) out += alphabet[b % 62];
  }
  return out;
}

/** Leases: registration of engine answers, sys/leases/*, and revocation (the engine is called). */
@Injectable()
export class LeaseService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(LEASE_REVOCATION_POLICY) private readonly policy: RevocationPolicy,
    private readonly repo: LeaseRepository,
    private readonly log: LeaseEventLog,
    private readonly mounts: MountsRepository,
    private readonly namespaces: NamespaceRepository,
  ) {}

  /** An engine answered with `secret`: the lease exists (committed) before the client sees its id. */
  async register(
    req: ContractRequest<typeof coreLeaseRegister>,
    caller: CallerContext | undefined,
  ): Promise<ContractResponse<typeof coreLeaseRegister>> {
    const mount = req.mount as MountInfo;
    const path = leaseRequestPath(req.path, mount);
    const namespaceId = mount.namespace ? await this.namespaces.idOf(mount.namespace) : undefined;
    const leaseId = leaseIdFor(path, randomLeaseSuffix(), namespaceId);
    const data = decideIssue({
      leaseId,
      path,
      mount,
      service: req.service,
      tokenAccessor: caller?.accessor ?? null,
      secret: {
        ttl: req.secret.ttl ?? 0,
        max_ttl: req.secret.max_ttl ?? 0,
        renewable: req.secret.renewable ?? false,
        internal: req.secret.internal ?? {},
      },
      now: this.now(),
    });
    await this.log.append(leaseId, 0, [{ type: 'LeaseIssued', data }]);
    return {
      lease_id: leaseId,
      lease_duration: Math.round((data.expiresAt - data.issuedAt) / 1000),
      renewable: data.renewable,
    };
  }

  async lookup(req: Req<'lookup'>): Promise<Res<'lookup'>> {
    const leaseId = req.body.lease_id;
    if (leaseId === '') throw leaseIdRequired();
    const found = await this.repo.find(leaseId);
    if (!found || !(await this.#visible(found.state.mountAccessor, req.mount.namespace)))
      throw invalidLease();
    return { data: lookupView(found.state, this.now()) };
  }

  async lookupList(req: Req<'lookupList'>): Promise<Res<'lookupList'>> {
    const prefix = prefixDirectory(req.params.prefix);
    const ids = await this.#scoped(await this.repo.idsWithPrefix(prefix), req.mount.namespace);
    return { data: { keys: childKeys(ids, prefix) } };
  }

  async renew(req: Req<'renew'>): Promise<Res<'renew'>> {
    const leaseId = req.body.lease_id || req.params.lease_id;
    if (leaseId === '') throw leaseIdRequired();
    if (leaseId.startsWith('auth/')) {
      throw invalidRequest('tokens cannot be renewed through this endpoint');
    }
    if ((await this.#scoped([leaseId], req.mount.namespace)).length === 0) throw invalidLease();
    return retryOnConflict(async () => {
      const found = await this.repo.find(leaseId);
      const state = assertRenewable(found?.state, this.now());
      const engine = await this.callEngine(state, 'renew', req.body.increment);
      const mountMax = (await this.mounts.byAccessor(state.mountAccessor))?.config.maxLeaseTtl ?? 0;
      const renewal = decideRenew(state, req.body.increment, engine, this.now(), mountMax);
      await this.log.append(leaseId, found?.version ?? 0, [
        { type: 'LeaseRenewed', data: { renewedAt: renewal.renewedAt, expiresAt: renewal.expiresAt } },
      ]);
      return {
        data: null,
        lease: { lease_id: leaseId, renewable: true, lease_duration: renewal.ttl },
        warnings: renewal.warnings,
      };
    });
  }

  async revoke(req: Req<'revoke'>): Promise<Res<'revoke'>> {
    const leaseId = req.body.lease_id || req.params.lease_id;
    if (leaseId === '') throw leaseIdRequired();
    if ((await this.#scoped([leaseId], req.mount.namespace)).length === 0)
      throw invalidRequest('lease not found');
    if (!req.body.sync) {
      // Vault's LazyRevoke: an unknown lease is an error, a known one is due now (202).
      if (!(await this.queue(leaseId))) throw invalidRequest('lease not found');
      return { data: null, status: 202 };
    }
    await this.revokeNow(leaseId, 'revoked', false);
    return {};
  }

  async revokePrefix(req: Req<'revokePrefix'>): Promise<Res<'revokePrefix'>> {
    const ids = await this.#scoped(
      await this.repo.idsWithPrefix(prefixDirectory(req.params.prefix)),
      req.mount.namespace,
    );
    if (!req.body.sync) {
      for (const id of ids) await this.queue(id);
      return { data: null, status: 202 };
    }
    for (const id of ids) await this.revokeNow(id, 'revoked', false);
    return {};
  }

  async revokeForce(req: Req<'revokeForce'>): Promise<Res<'revokeForce'>> {
    const ids = await this.repo.idsWithPrefix(prefixDirectory(req.params.prefix));
    for (const id of await this.#scoped(ids, req.mount.namespace)) {
      await this.revokeNow(id, 'forced', true);
    }
    return {};
  }

  /**
   * The leases a namespace's sys/leases may see: those of its mounts and its children's (the
   * root sees all). A lease of another namespace does not exist there.
   */
  async #scoped(ids: readonly string[], namespace: string): Promise<string[]> {
    if (namespace === '') return [...ids];
    const kept: string[] = [];
    for (const id of ids) {
      const found = await this.repo.find(id);
      if (found && (await this.#visible(found.state.mountAccessor, namespace))) kept.push(id);
    }
    return kept;
  }

  async #visible(mountAccessor: string, namespace: string): Promise<boolean> {
    if (namespace === '') return true;
    const mount = await this.mounts.byAccessor(mountAccessor);
    return (mount?.namespace ?? '').startsWith(namespace);
  }

  /** Nothing dangles in an event-sourced index; answered as Vault answers a started tidy. */
  tidy(): Res<'tidy'> {
    return { data: null, status: 202, warnings: [TIDY_WARNING] };
  }

  async count(req: Req<'count'>): Promise<Res<'count'>> {
    if (req.query.type.toLowerCase() !== 'irrevocable') return {};
    const leases = await this.#irrevocableIn(req, Number.MAX_SAFE_INTEGER);
    const counts: Record<string, number> = {};
    for (const { lease: l } of leases) counts[l.mountAccessor] = (counts[l.mountAccessor] ?? 0) + 1;
    return { data: { lease_count: leases.length, counts } };
  }

  async list(req: Req<'list'>): Promise<Res<'list'>> {
    if (req.query.type.toLowerCase() !== 'irrevocable') return {};
    const limit = irrevocableLimit(req.query.limit);
    // one more than the limit tells whether Vault's "command halted" warning applies
    const found = await this.#irrevocableIn(req, limit === 'none' ? Number.MAX_SAFE_INTEGER : limit + 1);
    const leases = limit === 'none' ? found : found.slice(0, limit);
    return {
      data: {
        lease_count: leases.length,
        leases: leases.map(({ lease: l, namespace }) => ({
          lease_id: l.leaseId,
          mount_id: l.mountAccessor,
          error: l.lastError,
          namespace,
        })),
      },
      warnings: leases.length < found.length ? [MAX_IRREVOCABLE_WARNING] : [],
    };
  }

  /**
   * Irrevocable leases of the request's namespace (Vault's getIrrevocableLeaseCounts): those of
   * its own mounts, and with include_child_namespaces those of its descendants too.
   */
  async #irrevocableIn(
    req: Req<'count'> | Req<'list'>,
    limit: number,
  ): Promise<{ lease: LeaseState; namespace: string }[]> {
    const namespace = req.mount.namespace ?? '';
    const children = req.query.include_child_namespaces;
    const all = await this.repo.irrevocable(Number.MAX_SAFE_INTEGER);
    const kept: { lease: LeaseState; namespace: string }[] = [];
    const nsOf = new Map<string, string>();
    for (const lease of all) {
      if (kept.length >= limit) break;
      let leaseNs = nsOf.get(lease.mountAccessor);
      if (leaseNs === undefined) {
        leaseNs = (await this.mounts.byAccessor(lease.mountAccessor))?.namespace ?? '';
        nsOf.set(lease.mountAccessor, leaseNs);
      }
      if (leaseNs === namespace || (children && leaseNs.startsWith(namespace)))
        kept.push({ lease, namespace: leaseNs });
    }
    return kept;
  }

  /** A disabled mount's leases become due (the lease manager revokes them); idempotent across replicas. */
  async revokeForMount(mountUuid: string): Promise<number> {
    let count = 0;
    for (const id of await this.repo.idsOfMount(mountUuid)) if (await this.queue(id)) count += 1;
    return count;
  }

  /**
   * Vault's unmount revokes the mount's leases (RevokePrefix, sync) before it removes the mount;
   * the first failure stops it, names the lease, and the mount stays.
   */
  async revokeMountLeasesNow(mountUuid: string): Promise<void> {
    const ids = [...(await this.repo.idsOfMount(mountUuid))].sort();
    for (const [idx, id] of ids.entries()) {
      try {
        await this.revokeNow(id, 'revoked', false);
      } catch (error) {
        const message = isDomainError(error) ? error.message : 'internal error';
        throw invalidRequest(
          `failed to revoke ${JSON.stringify(id)} (${idx + 1} / ${ids.length}): ${message}`,
        );
      }
    }
  }

  /** Revoking tokens revokes the leases created with them: they become due now (the manager revokes). */
  async revokeForTokens(accessors: readonly string[]): Promise<number> {
    let count = 0;
    for (const id of await this.repo.idsOfTokens(accessors)) if (await this.queue(id)) count += 1;
    return count;
  }

  /**
   * Calls the engine's revoke, then records the revocation. A failing engine leaves the lease in
   * place with a retry time (the manager retries with back-off; irrevocable after N tries) and
   * answers Vault's text, unless `force` (revoke-force: gone whatever the engine said).
   */
  async revokeNow(
    leaseId: string,
    reason: 'revoked' | 'expired' | 'forced',
    force: boolean,
  ): Promise<boolean> {
    const found = await this.repo.find(leaseId);
    if (!found) return false; // Vault: nothing to revoke
    try {
      await this.callEngine(found.state, 'revoke', 0);
    } catch (error) {
      if (!force) {
        const message = isDomainError(error) ? error.message : 'internal error';
        await this.recordFailure(leaseId, message);
        // Vault's revokeEntry wraps the backend's error with the (nil) response it got.
        throw invalidRequest(`failed to revoke entry: resp: (*logical.Response)(nil) err: ${message}`);
      }
    }
    return retryOnConflict(async () => {
      const current = await this.repo.find(leaseId);
      if (!current) return false; // revoked meanwhile (another request or the manager)
      await this.log.append(leaseId, current.version, [
        { type: 'LeaseRevoked', data: { revokedAt: this.now(), reason } },
      ]);
      return true;
    });
  }

  private async recordFailure(leaseId: string, message: string): Promise<void> {
    await retryOnConflict(async () => {
      const current = await this.repo.find(leaseId);
      if (!current) return;
      const data = decideRevocationFailure(current.state, message, this.now(), this.policy);
      await this.log.append(leaseId, current.version, [{ type: 'LeaseRevocationFailed', data }]);
    });
  }

  /** Makes a lease due now; false when there is no such lease. */
  private async queue(leaseId: string): Promise<boolean> {
    return retryOnConflict(async () => {
      const current = await this.repo.find(leaseId);
      if (!current) return false;
      const now = this.now();
      if (current.state.expiresAt > now) {
        await this.log.append(leaseId, current.version, [
          { type: 'LeaseRevocationQueued', data: { queuedAt: now, expiresAt: now } },
        ]);
      }
      return true;
    });
  }

  private async callEngine(
    state: LeaseState,
    kind: 'renew' | 'revoke',
    increment: number,
  ): Promise<{ ttl: number; max_ttl: number }> {
    const contracts = engineLeaseContracts(state.service);
    const payload = {
      lease_id: state.leaseId,
      mount: leaseMount(state),
      internal: state.internal,
      increment: Math.max(0, increment),
      issue_time: new Date(state.issuedAt).toISOString(),
    };
    const opts = { timeoutMs: ENGINE_TIMEOUT_MS };
    if (kind === 'revoke') {
      await this.runtime.transport.request(contracts.revoke, payload, opts);
      return { ttl: 0, max_ttl: 0 };
    }
    return this.runtime.transport.request(contracts.renew, payload, opts);
  }

  private now(): number {
    return this.runtime.clock().getTime();
  }
}

/** What the engine learns of the mount its lease came from. */
function leaseMount(state: LeaseState): MountInfo {
  return {
    path: state.mountPath,
    uuid: state.mountUuid,
    accessor: state.mountAccessor,
    type: state.mountType,
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
}
