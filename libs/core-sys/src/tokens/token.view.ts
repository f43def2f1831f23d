import type { AuthBlock, ResolvedToken, TokenLookupData } from '@coffer/contracts';
import { isUseLimited, type TokenState } from './token.decider';
import { combinedPolicies } from './token-policies';

export type TokenType = 'service' | 'batch';

/** Stored tokens have an accessor; batch tokens have none. */
const typeOf = (state: TokenState): TokenType => (state.accessor === '' ? 'batch' : 'service');

/** Vault's `auth` block (create, renew, login). `leaseDuration` is the TTL just granted. */
export function authBlock(
  state: TokenState,
  clientToken: string,
  identityPolicies: readonly string[],
  leaseDuration: number,
): AuthBlock {
  const auth: AuthBlock = {
    client_token: clientToken,
    accessor: state.accessor,
    policies: combinedPolicies(state.policies, identityPolicies),
    token_policies: state.policies,
    metadata: Object.keys(state.meta).length > 0 ? state.meta : null,
    lease_duration: leaseDuration,
    renewable: state.renewable,
    entity_id: state.entityId,
    token_type: typeOf(state),
    orphan: state.parentAccessor === null,
    mfa_requirement: null,
    num_uses: state.numUses,
  };
  if (identityPolicies.length > 0) auth.identity_policies = [...identityPolicies];
  return auth;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Vault's token lookup data. `id` is the token for lookup/lookup-self, "" for lookup-accessor. */
export function lookupData(
  state: TokenState,
  id: string,
  identityPolicies: readonly string[],
  nowMs: number,
  /** policies of the entity's groups in namespaces above the token's, by namespace id */
  externalPolicies: Record<string, string[]> = {},
): TokenLookupData {
  const data: TokenLookupData = {
    accessor: state.accessor,
    creation_time: Math.floor(state.createdAt / 1000),
    creation_ttl: state.creationTtl,
    display_name: state.displayName,
    entity_id: state.entityId,
    expire_time: null,
    explicit_max_ttl: state.explicitMaxTtl,
    id,
    meta: Object.keys(state.meta).length > 0 ? state.meta : null,
    num_uses: state.numUses,
    orphan: state.parentAccessor === null,
    path: state.path,
    policies: state.policies,
    ttl: 0,
    type: typeOf(state),
  };
  if (state.role !== undefined) data.role = state.role;
  if (state.boundCidrs !== undefined) data.bound_cidrs = state.boundCidrs;
  if (state.period > 0) data.period = state.period;
  if (state.expiresAt > 0) {
    // Only expiring tokens have a lease in Vault: expiry, renewability and issue time come with it.
    data.expire_time = iso(state.expiresAt);
    data.ttl = Math.max(0, Math.floor((state.expiresAt - nowMs) / 1000));
    data.renewable = state.renewable;
    data.issue_time = iso(state.createdAt);
    if (state.lastRenewedAt !== null) {
      data.last_renewal_time = Math.floor(state.lastRenewedAt / 1000);
      data.last_renewal = iso(state.lastRenewedAt);
    }
  }
  if (identityPolicies.length > 0 || Object.keys(externalPolicies).length > 0) {
    data.identity_policies = [...identityPolicies];
    data.external_namespace_policies = externalPolicies;
  }
  return data;
}

export function resolvedToken(
  state: TokenState,
  identity: { policies: readonly string[]; externalPolicies?: Record<string, string[]> },
): ResolvedToken {
  const external = identity.externalPolicies ?? {};
  return {
    accessor: state.accessor,
    tokenRef: state.tokenRef,
    policies: state.policies,
    identityPolicies: [...identity.policies],
    ...(Object.keys(external).length > 0 ? { externalPolicies: external } : {}),
    entityId: state.entityId,
    displayName: state.displayName,
    expiresAt: state.expiresAt,
    // Use-limited tokens must come back here on every request to be counted, including the one
    // that spent the last use (remaining 0): cached, it would outlive its uses.
    cacheable: !isUseLimited(state),
    ...(state.boundCidrs !== undefined ? { boundCidrs: state.boundCidrs } : {}),
    ...(state.namespace ? { namespace: state.namespace } : {}),
  };
}
