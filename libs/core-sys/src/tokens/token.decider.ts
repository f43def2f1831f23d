import { RESPONSE_WRAPPING_POLICY_NAME } from '@coffer/acl';
import { DomainError, invalidRequest, type TokenCreateBody } from '@coffer/contracts';
import type {
  RevocationReason,
  TokenCreatedData,
  TokenEvent,
  TokenRenewedData,
  TokenRevokedData,
  TokenUsedData,
} from './token.events';
import { isSubset, sanitizePolicies } from './token-policies';
import { calculateTtl, type MountTtls } from './token-ttl';

/** A live token as the decisions see it (the read model row, derived from the token's stream). */
export interface TokenState extends TokenCreatedData {
  /** unix ms of the last use of a use-limited token; the token is invalid from then on */
  exhaustedAt: number | null;
  lastRenewedAt: number | null;
}

/** Applies one event; null = the token no longer exists (revoked). */
export function evolve(state: TokenState | null, event: TokenEvent): TokenState | null {
  switch (event.type) {
    case 'TokenCreated':
      return { ...event.data, exhaustedAt: null, lastRenewedAt: null };
    case 'TokenRenewed':
      return state && { ...state, expiresAt: event.data.expiresAt, lastRenewedAt: event.data.renewedAt };
    case 'TokenUsed':
      return state && { ...state, numUses: event.data.remaining, exhaustedAt: event.data.exhaustedAt };
    case 'TokenOrphaned':
      return state && { ...state, parentAccessor: null };
    case 'TokenRevoked':
      return null;
  }
}

/** Usable for authentication: not past its expiry, not used up. */
export function isUsable(state: TokenState, nowMs: number): boolean {
  return state.exhaustedAt === null && (state.expiresAt === 0 || state.expiresAt > nowMs);
}

/**
 * Created with num_uses. A used-up token counts too: its remaining count is 0, which must not
 * read as "unlimited" (caching, child creation).
 */
export function isUseLimited(state: TokenState): boolean {
  return state.numUses > 0 || state.exhaustedAt !== null;
}

/** The parameters of auth/token/create, read from its body (createParamsOf). Durations in seconds. */
export interface CreateTokenParams {
  id?: string;
  policies?: string[];
  meta: Record<string, string>;
  noParent: boolean;
  noDefaultPolicy: boolean;
  renewable: boolean;
  /** type=batch: not stored, sealed into the token itself */
  batch: boolean;
  ttl: number;
  explicitMaxTtl: number;
  displayName?: string;
  numUses: number;
  period: number;
}

/** auth/token/create[-orphan]: the parsed body with Vault's defaults and value rules. */
export function createParamsOf(body: TokenCreateBody): CreateTokenParams {
  const type = body.type ?? '';
  if (type !== '' && type !== 'service' && type !== 'batch')
    throw invalidRequest("invalid 'token_type' value");
  const batch = type === 'batch';
  const numUses = body.num_uses ?? 0;
  const explicitMaxTtl = body.explicit_max_ttl ?? 0;
  const period = body.period ?? 0;
  if (batch) {
    const bad =
      explicitMaxTtl !== 0 ? 'explicit_max_ttl' : numUses !== 0 ? 'num_uses' : period !== 0 ? 'period' : '';
    if (bad !== '') throw invalidRequest(`batch tokens cannot have ${JSON.stringify(bad)} set`);
  }
  if (numUses < 0) throw invalidRequest('number of uses cannot be negative');
  if (explicitMaxTtl < 0) throw invalidRequest('explicit_max_ttl must be positive');
  if (period < 0) throw invalidRequest('period must be positive');
  if (body.ttl !== undefined && body.ttl < 0) throw invalidRequest('ttl must be positive');
  if (body.ttl === undefined && body.lease !== undefined && body.lease < 0)
    throw invalidRequest('lease must be positive');
  if ((body.entity_alias ?? '') !== '')
    throw invalidRequest('entity_alias can only be used with a token role');
  return {
    id: body.id || undefined,
    policies: body.policies,
    meta: body.meta ?? body.metadata ?? {},
    noParent: body.no_parent ?? false,
    noDefaultPolicy: body.no_default_policy ?? false,
    // Batch tokens are never renewable (Vault forces it, whatever the request says).
    renewable: !batch && (body.renewable ?? true),
    batch,
    ttl: body.ttl ?? body.lease ?? 0,
    explicitMaxTtl,
    displayName: body.display_name || undefined,
    numUses,
    period,
  };
}

/** What to issue, once the caller's rights are settled. */
export interface TokenSpec {
  customId?: string;
  parentAccessor: string | null;
  policies: string[];
  meta: Record<string, string>;
  displayName: string;
  numUses: number;
  renewable: boolean;
  ttl: number;
  backendMaxTtl: number;
  explicitMaxTtl: number;
  period: number;
  path: string;
  entityId: string;
  /** token-store rule: a root-policy token without TTL never expires */
  allowNonExpiring: boolean;
  /** the creating token expires (an expiring token cannot create a non-expiring one) */
  creatorExpires: boolean;
  /** a batch token: never stored, not renewable, no accessor */
  batch?: boolean;
  /** the token role of auth/token/create/:role */
  role?: string;
  /** token_bound_cidrs (none = anywhere) */
  boundCidrs?: string[];
  /** the namespace it is created in ("" or absent = root) */
  namespace?: string;
}

export interface ChildTokenCommand {
  /** the calling token */
  parent: TokenState;
  /** the caller holds root (treated as sudo on the token store) */
  sudo: boolean;
  /** auth/token/create-orphan */
  orphanRoute: boolean;
  params: CreateTokenParams;
  path: string;
}

/** Internal policies no token may carry (Vault's nonAssignablePolicies). */
export const NON_ASSIGNABLE_POLICIES = [RESPONSE_WRAPPING_POLICY_NAME, 'control-group'];

export function assertAssignable(policies: readonly string[]): void {
  const bad = policies.find((p) => NON_ASSIGNABLE_POLICIES.includes(p));
  if (bad !== undefined) throw invalidRequest(`cannot assign policy ${JSON.stringify(bad)}`);
}

/** Only root creates root, and never as a batch token (batch tokens cannot be revoked). */
export function assertRootRules(policies: readonly string[], parent: TokenState, batch: boolean): void {
  if (!policies.includes('root')) return;
  if (!parent.policies.includes('root')) {
    throw invalidRequest('root tokens may not be created without parent token being root');
  }
  if (batch) throw invalidRequest('batch tokens cannot be root tokens');
}

const displayNameSanitize = /[^a-zA-Z0-9-]/g;

/** Vault's display name for token-store tokens: "token" or "token-<name>" (sanitised). */
export function tokenDisplayName(name: string | undefined): string {
  if (!name) return 'token';
  let full = `token-${name}`.replace(displayNameSanitize, '-');
  if (full.endsWith('-')) full = full.slice(0, -1);
  return full;
}

/** Vault's rules for a custom token id (root only). */
export function validateCustomId(id: string): void {
  if (id.startsWith('hvs.')) throw invalidRequest("custom token ID cannot have the 'hvs.' prefix");
  if (id.startsWith('s.')) throw invalidRequest("custom token ID cannot have the 's.' prefix");
  if (id.includes('.')) throw invalidRequest("custom token ID cannot have the '.' in the value");
}

/**
 * The policy, parentage and privilege rules of Vault's handleCreateCommon (without token roles):
 * a non-sudo caller may only hand out a subset of its own policies and gets "default" only if it
 * has it; orphans (no_parent), periodic tokens and custom ids need sudo; only root creates root.
 */
export function decideChildSpec(cmd: ChildTokenCommand): TokenSpec {
  const { parent, sudo, params } = cmd;
  if (isUseLimited(parent)) {
    throw invalidRequest('restricted use token cannot generate child tokens');
  }

  if (params.id !== undefined && params.id !== '') {
    if (!sudo) throw invalidRequest('root or sudo privileges required to specify token id');
    validateCustomId(params.id);
  }

  let requested: string[];
  let addDefault = false;
  if (!params.policies || params.policies.length === 0) {
    requested = sanitizePolicies(parent.policies, false);
  } else if (!sudo) {
    requested = sanitizePolicies(params.policies, false);
    if (!isSubset(sanitizePolicies(parent.policies, false), requested)) {
      throw invalidRequest('child policies must be subset of parent');
    }
    addDefault = !params.noDefaultPolicy && parent.policies.includes('default');
  } else {
    requested = params.policies;
    addDefault = !params.noDefaultPolicy;
  }
  let policies = sanitizePolicies(requested, addDefault);
  if (params.noDefaultPolicy) policies = policies.filter((p) => p !== 'default');
  assertAssignable(policies);
  assertRootRules(policies, parent, params.batch);

  let parentAccessor: string | null = parent.accessor;
  if (params.noParent) {
    if (!sudo) throw invalidRequest('root or sudo privileges required to create orphan token');
    parentAccessor = null;
  } else if (cmd.orphanRoute) {
    parentAccessor = null;
  }

  if (params.period > 0 && !sudo)
    throw invalidRequest('root or sudo privileges required to create periodic token');

  return {
    // Vault drops a custom id for batch tokens: the token is its own sealed entry.
    customId: params.batch ? undefined : params.id || undefined,
    ...(params.batch ? { batch: true } : {}),
    parentAccessor,
    policies,
    meta: params.meta,
    displayName: tokenDisplayName(params.displayName),
    numUses: params.numUses,
    renewable: params.renewable,
    ttl: params.ttl,
    backendMaxTtl: 0,
    explicitMaxTtl: params.explicitMaxTtl,
    period: params.period,
    path: cmd.path,
    // Orphans start a new tree and do not inherit the creator's entity.
    entityId: parentAccessor !== null ? parent.entityId : '',
    allowNonExpiring: true,
    creatorExpires: parent.expiresAt !== 0,
  };
}

export interface IssueContext {
  nowMs: number;
  mount: MountTtls;
  mountAccessor: string;
  accessor: string;
  tokenHash: string;
  tokenRef: string;
}

export interface IssueDecision {
  created: TokenCreatedData;
  warnings: string[];
}

/** TTL and renewability of a new token (Vault: CalculateTTL unless a root token without TTL). */
export function issueToken(spec: TokenSpec, ctx: IssueContext): IssueDecision {
  let ttl = 0;
  let warnings: string[] = [];
  const nonExpiringRoot = spec.allowNonExpiring && spec.policies.includes('root') && spec.ttl === 0;
  if (spec.period > 0 || !nonExpiringRoot) {
    const result = calculateTtl({
      increment: 0,
      backendTtl: spec.ttl,
      period: spec.period,
      backendMaxTtl: spec.backendMaxTtl,
      explicitMaxTtl: spec.explicitMaxTtl,
      startMs: ctx.nowMs,
      nowMs: ctx.nowMs,
      mount: ctx.mount,
    });
    ttl = result.ttl;
    warnings = result.warnings;
  }
  if (ttl === 0 && spec.explicitMaxTtl > 0) ttl = spec.explicitMaxTtl;
  let renewable = spec.renewable;
  if (ttl === 0) {
    if (spec.creatorExpires)
      throw invalidRequest('expiring root tokens cannot create non-expiring root tokens');
    // Non-expiring tokens are not advertised as renewable: renewing them is refused.
    renewable = false;
  }
  return {
    warnings,
    created: {
      accessor: ctx.accessor,
      tokenHash: ctx.tokenHash,
      tokenRef: ctx.tokenRef,
      parentAccessor: spec.parentAccessor,
      policies: spec.policies,
      meta: spec.meta,
      displayName: spec.displayName,
      numUses: spec.numUses,
      renewable,
      creationTtl: ttl,
      renewTtl: spec.allowNonExpiring ? ttl : spec.ttl,
      backendMaxTtl: spec.backendMaxTtl,
      explicitMaxTtl: spec.explicitMaxTtl,
      period: spec.period,
      createdAt: ctx.nowMs,
      expiresAt: ttl > 0 ? ctx.nowMs + ttl * 1000 : 0,
      path: spec.path,
      entityId: spec.entityId,
      mountAccessor: ctx.mountAccessor,
      ...(spec.role !== undefined ? { role: spec.role } : {}),
      ...(spec.boundCidrs !== undefined && spec.boundCidrs.length > 0 ? { boundCidrs: spec.boundCidrs } : {}),
      ...(spec.namespace ? { namespace: spec.namespace } : {}),
    },
  };
}

export interface RenewDecision {
  renewed: TokenRenewedData;
  warnings: string[];
}

/** Vault's token renewal: a new TTL from the increment (or the base TTL), within the max TTL. */
export function decideRenew(
  state: TokenState,
  increment: number,
  nowMs: number,
  mount: MountTtls,
): RenewDecision {
  if (state.expiresAt === 0) throw invalidRequest('lease does not expire');
  if (!state.renewable) throw invalidRequest('lease is not renewable');
  if (increment < 0) throw invalidRequest('increment must be positive');
  const { ttl, warnings } = calculateTtl({
    increment,
    backendTtl: state.renewTtl,
    period: state.period,
    backendMaxTtl: state.backendMaxTtl,
    explicitMaxTtl: state.explicitMaxTtl,
    startMs: state.createdAt,
    nowMs,
    mount,
  });
  return { renewed: { ttl, expiresAt: nowMs + ttl * 1000, renewedAt: nowMs }, warnings };
}

/** One request made with the token: use-limited tokens count down; undefined = nothing to record. */
export function decideUse(state: TokenState, nowMs: number): TokenUsedData | undefined {
  // An exhausted token has 0 uses left, which must not read as "unlimited".
  if (state.exhaustedAt !== null) throw new DomainError('invalid_token', 'permission denied');
  if (state.numUses === 0) return undefined;
  const remaining = state.numUses - 1;
  return { remaining, exhaustedAt: remaining === 0 ? nowMs : null };
}

export function decideRevoke(reason: RevocationReason, nowMs: number): TokenRevokedData {
  return { reason, revokedAt: nowMs };
}

/**
 * Order in which to revoke a token tree: children before parents (root last), so a revocation
 * that stops half-way leaves the root alive and a retry finishes the job.
 */
export function revocationOrder(
  root: string,
  tree: readonly { accessor: string; parentAccessor: string | null }[],
): string[] {
  const children = new Map<string, string[]>();
  for (const node of tree) {
    if (node.parentAccessor === null) continue;
    const list = children.get(node.parentAccessor) ?? [];
    list.push(node.accessor);
    children.set(node.parentAccessor, list);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  // Iterative post-order: deep trees must not blow the stack, and cycles (impossible by
  // construction, but cheap to guard) must not loop.
  const stack: { accessor: string; expanded: boolean }[] = [{ accessor: root, expanded: false }];
  while (stack.length > 0) {
    const top = stack.pop() as { accessor: string; expanded: boolean };
    if (top.expanded) {
      out.push(top.accessor);
      continue;
    }
    if (seen.has(top.accessor)) continue;
    seen.add(top.accessor);
    stack.push({ accessor: top.accessor, expanded: true });
    for (const child of children.get(top.accessor) ?? []) stack.push({ accessor: child, expanded: false });
  }
  return out;
}
