import type { EntityFacts, ResolvedToken, SentinelTokenFacts } from '@coffer/contracts';

/** The request as a Sentinel policy sees it (Vault's `request` namespace). */
export interface SentinelRequestFacts {
  path: string;
  operation: string;
  data: Record<string, unknown>;
  remoteAddress: string;
  wrapTtl: number | undefined;
  policyOverride: boolean;
}

export function requestValue(r: SentinelRequestFacts): Record<string, unknown> {
  return {
    path: r.path,
    operation: r.operation,
    data: r.data,
    connection: { remote_addr: r.remoteAddress },
    wrapping: r.wrapTtl === undefined ? undefined : { ttl: r.wrapTtl },
    policy_override: r.policyOverride,
  };
}

/**
 * `token.*`: the resolved token (policies, ttl left) plus its stored facts; a token core-sys does
 * not store is a batch token.
 */
export function tokenValue(
  token: ResolvedToken,
  facts: SentinelTokenFacts | null,
  now: number,
): Record<string, unknown> {
  const ttl = token.expiresAt === 0 ? 0 : Math.max(0, Math.floor((token.expiresAt - now) / 1000));
  return {
    accessor: token.accessor,
    policies: token.policies,
    identity_policies: token.identityPolicies,
    type: facts?.type ?? 'batch',
    creation_time: facts ? new Date(facts.creation_time).toISOString() : undefined,
    creation_ttl: facts?.creation_ttl,
    explicit_max_ttl: facts?.explicit_max_ttl,
    period: facts?.period,
    num_uses: facts?.num_uses,
    path: facts?.path,
    role: facts?.role,
    display_name: token.displayName,
    entity_id: token.entityId,
    metadata: facts?.metadata ?? {},
    ttl,
  };
}

/** `identity.entity` and `identity.groups.by_id` / `by_name`. */
export function identityValue(entity: EntityFacts | null): Record<string, unknown> {
  if (!entity) return { groups: { by_id: {}, by_name: {} } };
  const byId: Record<string, unknown> = {};
  const byName: Record<string, unknown> = {};
  for (const g of entity.groups) {
    Object.defineProperty(byId, g.id, { value: { id: g.id, name: g.name }, enumerable: true });
    Object.defineProperty(byName, g.name, { value: { id: g.id, name: g.name }, enumerable: true });
  }
  return {
    entity: { id: entity.id, name: entity.name, metadata: entity.metadata, aliases: entity.aliases },
    groups: { by_id: byId, by_name: byName },
  };
}
