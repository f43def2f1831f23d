import { Inject, Injectable } from '@nestjs/common';
import { compileAcl, ROOT_POLICY_NAME, type Acl } from '@coffer/acl';
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
  ): Promise<Acl> {
    if (root || policyNames.includes(ROOT_POLICY_NAME)) return compileAcl([], { root: true });
    // a name holding "/" is no policy of the namespace (names are one segment)
    const qualified = policyNames.filter((n) => !n.includes('/')).map((n) => namespace + n);
    const parsed = await this.policies.parsed(qualified);
    const needsEntity = parsed.some((p) => p.templated) && entityId !== undefined && entityId !== '';
    const entity = needsEntity ? await this.identity.facts(entityId) : null;
    return compileAcl(parsed, { entity, now: this.runtime.clock() });
  }

  forCaller(caller: CallerContext): Promise<Acl> {
    return this.compile(caller.policies, caller.entityId, caller.root, caller.tokenNamespace ?? '');
  }

  forToken(token: ResolvedToken): Promise<Acl> {
    return this.compile(
      [...token.policies, ...token.identityPolicies],
      token.entityId,
      false,
      token.namespace ?? '',
    );
  }
}
