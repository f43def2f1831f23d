import { Inject, Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { invalidation, notFound, type JsonObject, type NamespaceInfoData } from '@coffer/contracts';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { EntityAdminService } from '../identity/entity-admin.service';
import { LeaseService } from '../leases/lease.service';
import { MountsService } from '../mounts/mounts.service';
import { PolicyService } from '../policies/policy.service';
import { SealService } from '../seal/seal.service';
import { SentinelPolicyService } from '../sentinel-policies/sentinel-policy.service';
import { TokenRevocationService } from '../tokens/token-revocation.service';
import {
  childrenOf,
  decideCreate,
  decideDeleteStart,
  decidePatch,
  fullNamespacePath,
  parentOf,
  type NamespaceRecord,
} from './namespace.decider';
import type { NamespaceEvent } from './namespace.events';
import { NamespaceEventLog } from './namespace.projection';
import { NamespaceRepository } from './namespace.repository';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Vault's namespace ids: 5 random base62 characters. */
function newNamespaceId(): string {
  let id = '';
  for (let i = 0; i < 5; i++) id += BASE62[randomInt(BASE62.length)];
  return id;
}

function info(n: NamespaceRecord): NamespaceInfoData {
  return { id: n.id, path: n.path, custom_metadata: { ...n.customMetadata } };
}

/**
 * sys/namespaces. A namespace is created inside the namespace of the request, with its own
 * built-in mounts (sys/, cubbyhole/, identity/, auth/token/) and default policy. Deleting it
 * is one guarded sequence: the namespace is marked deleting and its mounts tainted first (from
 * then on it answers nothing), then its tokens and leases are revoked, its mounts removed (their
 * engines purge the data), its ACL policies, RGPs, EGPs, entities and groups deleted, and finally the namespace
 * itself. A deletion
 * cut short is resumed by the next DELETE.
 */
@Injectable()
export class NamespaceService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: NamespaceRepository,
    private readonly log: NamespaceEventLog,
    private readonly seal: SealService,
    @Inject(MountsService)
    private readonly mounts: Pick<
      MountsService,
      'ensureDefaults' | 'namespaceMounts' | 'taintNamespace' | 'removeNamespaceMounts'
    >,
    @Inject(PolicyService)
    private readonly policies: Pick<PolicyService, 'ensureDefault' | 'deleteNamespace'>,
    @Inject(TokenRevocationService) private readonly tokens: Pick<TokenRevocationService, 'revokeNamespace'>,
    @Inject(LeaseService) private readonly leases: Pick<LeaseService, 'revokeMountLeasesNow'>,
    @Inject(EntityAdminService) private readonly identity: Pick<EntityAdminService, 'deleteNamespace'>,
    @Inject(SentinelPolicyService)
    private readonly sentinel: Pick<SentinelPolicyService, 'deleteNamespace'>,
  ) {}

  /** LIST sys/namespaces: the children of the request's namespace, keys relative to it. */
  async list(
    namespace: string,
  ): Promise<{ data: { keys: string[]; key_info: Record<string, NamespaceInfoData> } }> {
    this.seal.assertUnsealed();
    const children = childrenOf((await this.repo.snapshot()).tree, namespace);
    if (children.length === 0) throw notFound();
    const keys = children.map((n) => n.path.slice(namespace.length));
    const keyInfo: Record<string, NamespaceInfoData> = {};
    for (const n of children) keyInfo[n.path.slice(namespace.length)] = info(n);
    return { data: { keys, key_info: keyInfo } };
  }

  async read(namespace: string, rawPath: string): Promise<{ data: NamespaceInfoData }> {
    this.seal.assertUnsealed();
    const path = fullNamespacePath(namespace, rawPath);
    const found = (await this.repo.snapshot()).tree.find((n) => n.path === path && !n.deleting);
    if (!found) throw notFound();
    return { data: info(found) };
  }

  async exists(namespace: string, rawPath: string): Promise<{ exists: boolean }> {
    this.seal.assertUnsealed();
    return { exists: await this.repo.exists(fullNamespacePath(namespace, rawPath)) };
  }

  /** POST sys/namespaces/:path (an existing namespace gets the given custom metadata). */
  async create(
    namespace: string,
    rawPath: string,
    customMetadata: Record<string, string> | undefined,
  ): Promise<{ data: NamespaceInfoData }> {
    this.seal.assertUnsealed();
    const path = fullNamespacePath(namespace, rawPath);
    const parentMounts = (await this.mounts.namespaceMounts(parentOf(path))).map((m) => m.path);
    const created = await this.#write((tree) =>
      decideCreate(tree, { path, customMetadata, parentMounts, newId: newNamespaceId }),
    );
    // Idempotent, so a create cut short is completed by its retry.
    await this.mounts.ensureDefaults(path);
    await this.policies.ensureDefault(path);
    if (created) await this.#announce();
    return this.read('', path);
  }

  /** PATCH sys/namespaces/:path: merge-patch of custom_metadata. */
  async patch(
    namespace: string,
    rawPath: string,
    patch: JsonObject | undefined,
  ): Promise<{ data: NamespaceInfoData }> {
    this.seal.assertUnsealed();
    const path = fullNamespacePath(namespace, rawPath);
    await this.#write((tree) => decidePatch(tree, path, patch));
    return this.read('', path);
  }

  /** DELETE sys/namespaces/:path. */
  async delete(namespace: string, rawPath: string): Promise<Record<string, never>> {
    this.seal.assertUnsealed();
    const path = fullNamespacePath(namespace, rawPath);
    let started = false;
    await this.#write((tree) => {
      const decision = decideDeleteStart(tree, path);
      started = decision !== undefined;
      return decision === 'resume' ? undefined : decision;
    });
    if (!started) return {};
    await this.#announce();
    // From here on the namespace is unreachable: its mounts refuse every request.
    await this.mounts.taintNamespace(path);
    await this.tokens.revokeNamespace(path);
    for (const mount of await this.mounts.namespaceMounts(path))
      await this.leases.revokeMountLeasesNow(mount.uuid);
    await this.mounts.removeNamespaceMounts(path);
    await this.policies.deleteNamespace(path);
    await this.identity.deleteNamespace(path);
    await this.sentinel.deleteNamespace(path);
    await this.#write((tree) =>
      tree.some((n) => n.path === path) ? { type: 'NamespaceDeleted', data: { path } } : undefined,
    );
    await this.#announce();
    return {};
  }

  /** Every live namespace path (managed mode and tests). */
  async paths(): Promise<string[]> {
    return (await this.repo.snapshot()).tree.filter((n) => !n.deleting).map((n) => n.path);
  }

  /** Read the tree, decide, append at the revision read; again on a concurrent change. */
  async #write(decide: (tree: readonly NamespaceRecord[]) => NamespaceEvent | undefined): Promise<boolean> {
    return retryOnConflict(async () => {
      const snapshot = await this.repo.snapshot();
      const event = decide(snapshot.tree);
      if (!event) return false;
      await this.log.append(undefined, snapshot.revision, [event]);
      return true;
    });
  }

  /** Gateways re-read their mount tables (a namespace's mounts appear or go) and drop cached tokens. */
  async #announce(): Promise<void> {
    await this.runtime.transport.publish(invalidation, { kind: 'mounts', keys: [] });
  }
}
