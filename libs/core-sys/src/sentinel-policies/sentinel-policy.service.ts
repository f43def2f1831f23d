import { Inject, Injectable } from '@nestjs/common';
import {
  invalidation,
  notFound,
  type ResponseOf,
  type SentinelPolicyEntry,
  type sysContracts,
  type SysSentinelPolicyBody,
} from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { SealService } from '../seal/seal.service';
import { decideSentinelWrite, egpPathEntries, normaliseSentinelName } from './sentinel-policy.decider';
import type { SentinelPolicyEvent } from './sentinel-policy.events';
import { SentinelPolicyEventLog } from './sentinel-policy.projection';
import { SentinelPolicyRepository, type StoredSentinelPolicy } from './sentinel-policy.repository';
import type { SentinelPolicyKind } from './sentinel-policy.table';

/** The policies of one namespace, with their names in it (stored as "<namespace><name>"). */
function ofNamespace(stored: StoredSentinelPolicy[], namespace: string): StoredSentinelPolicy[] {
  return stored
    .filter((p) => p.name.startsWith(namespace) && !p.name.slice(namespace.length).includes('/'))
    .map((p) => ({ ...p, name: p.name.slice(namespace.length) }));
}

/**
 * RGPs and EGPs (sys/policies/rgp, sys/policies/egp): last-writer-wins per policy, one stream
 * each. Like ACL policies they belong to a namespace (Vault Enterprise): stored under
 * "<namespace><name>", managed at <namespace>/sys/policies/rgp|egp, and applied by the gateway
 * to requests in that namespace and below. Every change is broadcast as a "policy" invalidation before the writer is answered, so
 * every gateway replica evaluates the new version on its next request.
 */
@Injectable()
export class SentinelPolicyService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: SentinelPolicyRepository,
    private readonly seal: SealService,
    private readonly log: SentinelPolicyEventLog,
  ) {}

  async listRgp(namespace: string): Promise<ResponseOf<typeof sysContracts.rgpList>> {
    this.seal.assertUnsealed();
    const keys = ofNamespace(await this.repo.all('rgp'), namespace).map((p) => p.name);
    if (keys.length === 0) throw notFound();
    return { kind: 'injected', data: { keys } };
  }

  async listEgp(namespace: string): Promise<ResponseOf<typeof sysContracts.egpList>> {
    this.seal.assertUnsealed();
    const stored = ofNamespace(await this.repo.all('egp'), namespace);
    if (stored.length === 0) throw notFound();
    const map: Record<string, { path: string; glob: boolean }[]> = {};
    for (const p of stored) map[p.name] = egpPathEntries(p.paths);
    return { kind: 'injected', data: { keys: stored.map((p) => p.name), name_path_map: map } };
  }

  async readRgp(namespace: string, rawName: string): Promise<ResponseOf<typeof sysContracts.rgpRead>> {
    const p = await this.#stored('rgp', namespace, rawName);
    return {
      kind: 'injected',
      data: {
        name: normaliseSentinelName(rawName),
        policy: p.policy,
        enforcement_level: p.enforcement_level,
      },
    };
  }

  async readEgp(namespace: string, rawName: string): Promise<ResponseOf<typeof sysContracts.egpRead>> {
    const p = await this.#stored('egp', namespace, rawName);
    return {
      kind: 'injected',
      data: {
        name: normaliseSentinelName(rawName),
        policy: p.policy,
        enforcement_level: p.enforcement_level,
        paths: p.paths,
      },
    };
  }

  async #stored(kind: SentinelPolicyKind, namespace: string, rawName: string): Promise<StoredSentinelPolicy> {
    this.seal.assertUnsealed();
    const p = await this.repo.byName(kind, namespace + normaliseSentinelName(rawName));
    if (!p) throw notFound();
    return p;
  }

  async write(
    kind: SentinelPolicyKind,
    namespace: string,
    rawName: string,
    body: SysSentinelPolicyBody,
  ): Promise<{ kind: 'envelope' }> {
    this.seal.assertUnsealed();
    await this.#append(decideSentinelWrite(kind, rawName, body, namespace));
    return { kind: 'envelope' };
  }

  async delete(kind: SentinelPolicyKind, namespace: string, rawName: string): Promise<{ kind: 'envelope' }> {
    this.seal.assertUnsealed();
    const name = namespace + normaliseSentinelName(rawName);
    if (await this.repo.byName(kind, name))
      await this.#append({ type: 'SentinelPolicyDeleted', data: { kind, name } });
    return { kind: 'envelope' };
  }

  async exists(kind: SentinelPolicyKind, namespace: string, rawName: string): Promise<{ exists: boolean }> {
    this.seal.assertUnsealed();
    const name = namespace + normaliseSentinelName(rawName);
    return { exists: (await this.repo.byName(kind, name)) !== undefined };
  }

  /** Deleting a namespace: its RGPs and EGPs go (those of its descendants are gone already). */
  async deleteNamespace(namespace: string): Promise<void> {
    if (namespace === '') return;
    for (const p of await this.repo.all())
      if (p.name.startsWith(namespace))
        await this.#append({ type: 'SentinelPolicyDeleted', data: { kind: p.kind, name: p.name } });
  }

  /** coreSentinelPolicies: every RGP and EGP, for the gateway. */
  async all(): Promise<{ policies: SentinelPolicyEntry[] }> {
    this.seal.assertUnsealed();
    return { policies: await this.repo.all() };
  }

  async #append(event: SentinelPolicyEvent): Promise<void> {
    const { kind, name } = event.data;
    await this.log.append({ kind, name }, 'any', [event]);
    await this.runtime.transport.publish(invalidation, { kind: 'policy', keys: [`${kind}:${name}`] });
  }
}
