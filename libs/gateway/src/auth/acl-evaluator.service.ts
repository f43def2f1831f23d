import { Inject, Injectable } from '@nestjs/common';
import { compileAcl, rebasePolicy, ROOT_POLICY_NAME, type Acl } from '@coffer/acl';
import type { ResolvedToken } from '@coffer/contracts';
import { KeyedCache } from '../cache/keyed-cache';
import { GATEWAY_OPTIONS, resolveCacheOptions, type GatewayOptions } from '../gateway.options';
import { EntityCache } from './entity-cache.service';
import { PolicyCache, type MaybePolicy } from './policy-cache.service';
import { qualifiedPolicyNames, tokenNamespace } from '../namespaces/namespace-scope';

interface PolicySet {
  policies: MaybePolicy[];
  templated: boolean;
  /** the compiled ACL when no policy is templated (it does not depend on the entity then) */
  acl: Acl;
}

const ROOT_ACL = compileAcl([], { root: true });

/** Policies of an ancestor namespace (a group there holds the token's entity), seen from below. */
interface ExternalSet {
  /** the namespaces from the ancestor down to the token's ("ns2/") */
  between: string;
  /** the policies' stored names ("ns1/team") */
  names: string[];
}

/**
 * The token's external policies (Vault's external_namespace_policies) that may apply: only those
 * of namespaces strictly above the token's, never "root" (a namespace's root policy is not an
 * identity policy), sorted for a stable cache key.
 */
export function externalSets(token: Pick<ResolvedToken, 'externalPolicies' | 'namespace'>): ExternalSet[] {
  const tokenNs = tokenNamespace(token);
  const sets: ExternalSet[] = [];
  for (const [ns, names] of Object.entries(token.externalPolicies ?? {})) {
    if (ns === tokenNs || !tokenNs.startsWith(ns)) continue;
    const kept = [...new Set(names.map((n) => n.trim().toLowerCase()))]
      .filter((n) => n !== '' && n !== ROOT_POLICY_NAME)
      .sort();
    if (kept.length > 0)
      sets.push({ between: tokenNs.slice(ns.length), names: qualifiedPolicyNames(ns, kept) });
  }
  return sets.sort((a, b) => a.between.localeCompare(b.between));
}

/** Token policies + identity policies, trimmed, lower-cased, de-duplicated and sorted. */
export function effectivePolicies(token: Pick<ResolvedToken, 'policies' | 'identityPolicies'>): string[] {
  const names = new Set<string>();
  for (const p of token.policies) names.add(p.trim().toLowerCase());
  for (const p of token.identityPolicies) names.add(p.trim().toLowerCase());
  names.delete('');
  return [...names].sort();
}

/**
 * Compiled ACLs, cached per policy set, and per policy set + entity when a policy is templated
 * ({{identity.entity.id}} ...). Dropped on "policy" (all) and "entity" (templated ones)
 * invalidations.
 */
@Injectable()
export class AclEvaluator {
  private readonly sets: KeyedCache<string, PolicySet>;
  private readonly templated: KeyedCache<string, Acl>;
  private readonly names = new WeakMap<ResolvedToken, string[]>();
  private readonly maxAgeMs: number;

  constructor(
    private readonly policies: PolicyCache,
    private readonly entities: EntityCache,
    @Inject(GATEWAY_OPTIONS) options: GatewayOptions,
  ) {
    const config = resolveCacheOptions(options.cache);
    this.sets = new KeyedCache(config.maxEntries);
    this.templated = new KeyedCache(config.maxEntries);
    this.maxAgeMs = config.maxAgeMs;
  }

  /** The caller's effective policy names (memoised per cached token). */
  policyNames(token: ResolvedToken): string[] {
    let names = this.names.get(token);
    if (!names) {
      names = effectivePolicies(token);
      this.names.set(token, names);
    }
    return names;
  }

  isRoot(token: ResolvedToken): boolean {
    return this.policyNames(token).includes(ROOT_POLICY_NAME);
  }

  async forToken(token: ResolvedToken): Promise<Acl> {
    const unqualified = this.policyNames(token);
    if (unqualified.includes(ROOT_POLICY_NAME)) return ROOT_ACL;
    // a token's policies are those of its namespace
    const names = qualifiedPolicyNames(tokenNamespace(token), unqualified);
    const external = externalSets(token);
    const key = [names.join('\n'), ...external.map((e) => `@${e.between}\n${e.names.join('\n')}`)].join('\n');
    const set = await this.sets.get(
      key,
      () => this.compileSet(names, external),
      () => this.maxAgeMs,
    );
    if (!set.templated) return set.acl;
    return this.templated.get(
      `${key}\0${token.entityId}`,
      async () => {
        const entity = token.entityId ? await this.entities.facts(token.entityId) : null;
        return compileAcl(set.policies, { entity });
      },
      () => this.maxAgeMs,
    );
  }

  invalidatePolicies(): void {
    this.sets.clear();
    this.templated.clear();
  }

  invalidateEntities(): void {
    this.templated.clear();
  }

  private async compileSet(names: string[], external: readonly ExternalSet[]): Promise<PolicySet> {
    const policies = await this.policies.get(names);
    for (const e of external) {
      for (const p of await this.policies.get(e.names)) policies.push(p && rebasePolicy(p, e.between));
    }
    const templated = policies.some((p) => p?.templated === true);
    return { policies, templated, acl: compileAcl(templated ? [] : policies) };
  }
}
