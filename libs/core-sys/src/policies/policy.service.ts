import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_POLICY, DEFAULT_POLICY_NAME, parsePolicy, ROOT_POLICY_NAME, type Policy } from '@coffer/acl';
import { invalidation, notFound, sysContracts, type ResponseOf, type SysPolicyBody } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { SealService } from '../seal/seal.service';
import {
  decideDelete,
  decideWrite,
  listKeys,
  normalisePolicyName,
  qualifiedPolicyName,
} from './policy.decider';
import type { PolicyEvent } from './policy.events';
import { PolicyEventLog } from './policy.projection';
import { PolicyRepository } from './policy.repository';

/** Writes and deletes answer no data, in both the current and the legacy form. */
type NoDataResponse = ResponseOf<typeof sysContracts.policyWrite>;

/**
 * ACL policies: sys/policies/acl and the legacy sys/policy. Writes are last-writer-wins per
 * policy (Vault's semantics), one stream per name; caches are told before the writer is
 * answered.
 */
@Injectable()
export class PolicyService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: PolicyRepository,
    private readonly seal: SealService,
    private readonly log: PolicyEventLog,
  ) {}

  /** LIST sys/policies/acl: `keys` at the top level (the contract) and under `data` (Vault). */
  async list(namespace = ''): Promise<ResponseOf<typeof sysContracts.policiesList>> {
    return { kind: 'injected', data: { keys: await this.#names(namespace) } };
  }

  /** GET/LIST sys/policy (legacy: injected, the names also as `policies`). */
  async legacyList(namespace = ''): Promise<ResponseOf<typeof sysContracts.legacyPoliciesList>> {
    const keys = await this.#names(namespace);
    return { kind: 'injected', data: { policies: keys, keys } };
  }

  /** The names of one namespace's policies, without their namespace. */
  async #names(namespace: string): Promise<string[]> {
    this.seal.assertUnsealed();
    const own = (await this.repo.names())
      .filter((n) => n.startsWith(namespace) && !n.slice(namespace.length).includes('/'))
      .map((n) => n.slice(namespace.length));
    return listKeys(own);
  }

  /** GET sys/policies/acl/:name: {name, policy}, at the top level and under `data`. */
  async read(rawName: string, namespace = ''): Promise<ResponseOf<typeof sysContracts.policyRead>> {
    const { name, text } = await this.#document(rawName, namespace);
    return { kind: 'injected', data: { name, policy: text } };
  }

  /** GET sys/policy/:name (legacy): {name, rules}, injected. */
  async legacyRead(
    rawName: string,
    namespace = '',
  ): Promise<ResponseOf<typeof sysContracts.legacyPolicyRead>> {
    const { name, text } = await this.#document(rawName, namespace);
    return { kind: 'injected', data: { name, rules: text } };
  }

  async #document(rawName: string, namespace: string): Promise<{ name: string; text: string }> {
    this.seal.assertUnsealed();
    const name = normalisePolicyName(rawName);
    const text =
      name === ROOT_POLICY_NAME ? '' : (await this.repo.byName(qualifiedPolicyName(namespace, name)))?.policy;
    if (text === undefined) throw notFound();
    return { name, text };
  }

  async write(
    rawName: string,
    body: SysPolicyBody,
    legacy: boolean,
    namespace = '',
  ): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const { event, warnings } = decideWrite(rawName, body, legacy);
    const stored: PolicyEvent =
      event.type === 'PolicyWritten'
        ? {
            type: 'PolicyWritten',
            data: { ...event.data, name: qualifiedPolicyName(namespace, event.data.name) },
          }
        : event;
    await this.#append(stored);
    return { kind: legacy ? 'injected' : 'envelope', warnings };
  }

  async delete(rawName: string, legacy: boolean, namespace = ''): Promise<NoDataResponse> {
    this.seal.assertUnsealed();
    const name = normalisePolicyName(rawName);
    const exists = (await this.repo.byName(qualifiedPolicyName(namespace, name))) !== undefined;
    const decided = decideDelete(name, exists);
    const event: PolicyEvent | undefined = decided && {
      type: 'PolicyDeleted',
      data: { name: qualifiedPolicyName(namespace, name) },
    };
    if (event) await this.#append(event);
    return { kind: legacy ? 'injected' : 'envelope' };
  }

  /** Existence check for create vs update capabilities. */
  async exists(rawName: string, namespace = ''): Promise<{ exists: boolean }> {
    this.seal.assertUnsealed();
    const name = normalisePolicyName(rawName);
    return {
      exists:
        name === ROOT_POLICY_NAME ||
        (await this.repo.byName(qualifiedPolicyName(namespace, name))) !== undefined,
    };
  }

  /** The given names that exist (root always does): for "policy does not exist" warnings. */
  async existing(names: string[]): Promise<string[]> {
    const wanted = names.map(normalisePolicyName);
    const stored = new Set((await this.repo.byNames(wanted)).map((p) => p.name));
    return names.filter((_, i) => {
      const n = wanted[i] ?? '';
      return n === ROOT_POLICY_NAME || stored.has(n);
    });
  }

  /** corePolicyTexts: stored policies among `names` (root is implicit and never sent). */
  async texts(names: string[]): Promise<{ policies: { name: string; text: string }[] }> {
    this.seal.assertUnsealed();
    const stored = await this.repo.byNames(names.map(normalisePolicyName));
    return { policies: stored.map((p) => ({ name: p.name, text: p.policy })) };
  }

  /** Parsed stored policies among `names`, for ACL evaluation inside core-sys. */
  async parsed(names: readonly string[]): Promise<Policy[]> {
    const stored = await this.repo.byNames(names.map(normalisePolicyName));
    return stored.map((p) => parsePolicy(p.name, p.policy));
  }

  /** Seeds the built-in default policy when it is missing (init, and after unseal). */
  async ensureDefault(namespace = ''): Promise<void> {
    const name = qualifiedPolicyName(namespace, DEFAULT_POLICY_NAME);
    if (await this.repo.byName(name)) return;
    await this.#append({ type: 'PolicyWritten', data: { name, policy: DEFAULT_POLICY } });
  }

  /** Deleting a namespace: every policy of it goes (default included). */
  async deleteNamespace(namespace: string): Promise<void> {
    if (namespace === '') return;
    for (const name of await this.repo.names()) {
      if (name.startsWith(namespace)) await this.#append({ type: 'PolicyDeleted', data: { name } });
    }
  }

  async #append(event: PolicyEvent): Promise<void> {
    const name = event.data.name;
    await this.log.append(name, 'any', [event]);
    await this.runtime.transport.publish(invalidation, { kind: 'policy', keys: [name] });
  }
}
