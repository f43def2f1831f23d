import { Inject, Injectable } from '@nestjs/common';
import { compileAcl, rebasePolicy, ROOT_POLICY_NAME, type Acl, type Policy } from '@coffer/acl';
import type { CallerContext, ResolvedToken } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { IdentityService } from '../identity/identity.service';
import { PolicyService } from '../policies/policy.service';

/**
 * Compiles the ACL of a policy set inside core-sys (capability checks, mount listings), from
 * the stored policies and, for templated paths, the entity's facts. Policies that no longer
 * exist simply contribute nothing, like Vault.
 */
@Injectable()
export class AclService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(PolicyService) private readonly policies: Pick<PolicyService, 'parsed'>,
    @Inject(IdentityService) private readonly identity: Pick<IdentityService, 'facts'>,
  ) {}

  /** `namespace`: the token's; its policies are stored under "<namespace><name>". */
  async compile(
    policyNames: readonly string[],
    entityId: string | undefined,
    root = false,
    namespace = '',
    externalPolicies: Record<string, string[]> = {},
  ): Promise<Acl> {
    if (root || policyNames.includes(ROOT_POLICY_NAME)) return compileAcl([], { root: true });
    // a name holding "/" is no policy of the namespace (names are one segment)
    const qualify = (ns: string, names: readonly string[]) =>
      names.filter((n) => !n.includes('/') && n !== ROOT_POLICY_NAME).map((n) => ns + n);
    const parsed: Policy[] = await this.policies.parsed(qualify(namespace, policyNames));
    // policies of a group in a namespace above the token's, seen from the token's (acl lib)
    for (const [ns, names] of Object.entries(externalPolicies)) {
      if (ns === namespace || !namespace.startsWith(ns)) continue;
      const between = namespace.slice(ns.length);
      for (const p of await this.policies.parsed(qualify(ns, names))) parsed.push(rebasePolicy(p, between));
    }
    const needsEntity = parsed.some((p) => p.templated) && entityId !== undefined && entityId !== '';
    const entity = needsEntity ? await this.identity.facts(entityId) : null;
    return compileAcl(parsed, { entity, now: this.runtime.clock() });
  }

  forCaller(caller: CallerContext): Promise<Acl> {
    return this.compile(
      caller.policies,
      caller.entityId,
      caller.root,
      caller.tokenNamespace ?? '',
      caller.externalPolicies,
    );
  }

  forToken(token: ResolvedToken): Promise<Acl> {
    return this.compile(
      [...token.policies, ...token.identityPolicies],
      token.entityId,
      false,
      token.namespace ?? '',
      token.externalPolicies,
    );
  }
}
