import { invalidRequest } from '@coffer/contracts';
import {
  assertAssignable,
  assertRootRules,
  isUseLimited,
  tokenDisplayName,
  validateCustomId,
  type CreateTokenParams,
  type TokenSpec,
  type TokenState,
} from '../tokens/token.decider';
import { isSubset, sanitizePolicies } from '../tokens/token-policies';
import type { TokenRoleState } from './token-role.decider';

export interface RoleTokenCommand {
  parent: TokenState;
  sudo: boolean;
  role: TokenRoleState;
  params: CreateTokenParams;
  /** `type` of the request body ("" = not given) */
  requestedType: string;
  /** `entity_alias` of the request body ("" = not given) */
  entityAlias: string;
  /** "auth/token/create/<role>" */
  path: string;
}

export interface RoleTokenDecision {
  spec: TokenSpec;
  warnings: string[];
}

/** go-glob's match: `*` is the only wildcard. */
export function globMatch(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!value.startsWith(first)) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found < 0) return false;
    at = found + middle.length;
  }
  return value.length - last.length >= at && value.endsWith(last);
}

const anyGlob = (patterns: readonly string[], value: string): boolean =>
  patterns.some((p) => globMatch(p, value));

/** Go's %q of a []string: ["a" "b"]. */
const goQuoted = (list: readonly string[]): string => `[${list.map((p) => JSON.stringify(p)).join(' ')}]`;

/** The token type a role hands out for the requested one (Vault: role.TokenType switch). */
function tokenTypeOf(role: TokenRoleState, requested: string): string {
  switch (role.tokenType) {
    case 'default-service':
      return requested;
    case 'default-batch':
      return requested === '' ? 'batch' : requested;
    case 'service':
    case 'batch':
      return role.tokenType;
  }
}

/** Vault's policy rules of handleCreateCommon when a role is used. */
function rolePolicies(cmd: RoleTokenCommand, noDefault: boolean): string[] {
  const { role, parent, params } = cmd;
  const requested = params.policies ?? [];
  const restricted =
    role.allowedPolicies.length > 0 ||
    role.disallowedPolicies.length > 0 ||
    role.allowedPoliciesGlob.length > 0 ||
    role.disallowedPoliciesGlob.length > 0;
  if (!restricted) return parentRulePolicies(cmd, noDefault);

  const addDefault =
    !noDefault &&
    !role.disallowedPolicies.includes('default') &&
    !anyGlob(role.disallowedPoliciesGlob, 'default');
  let final = requested.length > 0 ? sanitizePolicies(requested, addDefault) : [];
  if (role.allowedPolicies.length > 0 || role.allowedPoliciesGlob.length > 0) {
    const allowed = sanitizePolicies(role.allowedPolicies, addDefault);
    if (final.length === 0) {
      final = allowed;
    } else if (!final.every((p) => allowed.includes(p) || anyGlob(role.allowedPoliciesGlob, p))) {
      const globs =
        role.allowedPoliciesGlob.length > 0
          ? ` or glob policies (${goQuoted(role.allowedPoliciesGlob)})`
          : '';
      throw invalidRequest(
        `token policies (${goQuoted(final)}) must be subset of the role's allowed policies (${goQuoted(allowed)})${globs}`,
      );
    }
  } else if (final.length === 0) {
    final = sanitizePolicies(parent.policies, addDefault);
  }
  const bad = final.find(
    (p) => role.disallowedPolicies.includes(p) || anyGlob(role.disallowedPoliciesGlob, p),
  );
  if (bad !== undefined)
    throw invalidRequest(`token policy ${JSON.stringify(bad)} is disallowed by this role`);
  return sanitizePolicies(final, false);
}

/** A role without policy lists: the caller's subset rule, as without a role. */
function parentRulePolicies(cmd: RoleTokenCommand, noDefault: boolean): string[] {
  const { parent, sudo, params } = cmd;
  const requested = params.policies ?? [];
  if (requested.length === 0) return sanitizePolicies(parent.policies, false);
  if (!sudo) {
    const asked = sanitizePolicies(requested, false);
    if (!isSubset(sanitizePolicies(parent.policies, false), asked)) {
      throw invalidRequest('child policies must be subset of parent');
    }
    return sanitizePolicies(asked, !noDefault && parent.policies.includes('default'));
  }
  return sanitizePolicies(requested, !noDefault);
}

/** The lesser of the request's and the role's value, with Vault's warning when both are set. */
function lesser(given: number, fromRole: number, warn: (v: number) => string, warnings: string[]): number {
  if (fromRole === 0) return given;
  if (given === 0) return fromRole;
  const value = Math.min(given, fromRole);
  warnings.push(warn(value));
  return value;
}

/**
 * auth/token/create/:role (Vault's handleCreateCommon with a role): the role's policy lists
 * replace the subset-of-the-caller rule, the role decides parentage (no_parent is ignored),
 * renewability, the path suffix and the token type, and caps period and explicit max TTL.
 */
export function decideRoleToken(cmd: RoleTokenCommand): RoleTokenDecision {
  const { parent, sudo, role, params } = cmd;
  if (isUseLimited(parent)) throw invalidRequest('restricted use token cannot generate child tokens');

  const type = tokenTypeOf(role, cmd.requestedType);
  if (type !== '' && type !== 'service' && type !== 'batch')
    throw invalidRequest("invalid 'token_type' value");
  const batch = type === 'batch';
  if (batch) {
    const bad =
      params.explicitMaxTtl !== 0
        ? 'explicit_max_ttl'
        : params.numUses !== 0
          ? 'num_uses'
          : params.period !== 0
            ? 'period'
            : '';
    if (bad !== '') throw invalidRequest(`batch tokens cannot have ${JSON.stringify(bad)} set`);
  }

  // The alias's entity is looked up (or created) by the service once the whole request is valid.
  if (cmd.entityAlias !== '' && !anyGlob(role.allowedEntityAliases ?? [], cmd.entityAlias.toLowerCase())) {
    throw invalidRequest("invalid 'entity_alias' value");
  }

  if (params.id !== undefined && !batch) {
    if (!sudo) throw invalidRequest('root or sudo privileges required to specify token id');
    validateCustomId(params.id);
  }

  const noDefault = params.noDefaultPolicy || role.tokenNoDefaultPolicy;
  let policies = rolePolicies(cmd, noDefault);
  if (noDefault) policies = policies.filter((p) => p !== 'default');
  assertAssignable(policies);
  assertRootRules(policies, parent, batch);

  if (params.period > 0 && !sudo)
    throw invalidRequest('root or sudo privileges required to create periodic token');

  const warnings: string[] = [];
  // A batch role has neither (its write refuses them); Vault skips the role's caps for batch tokens.
  const capped = batch ? { ...role, tokenExplicitMaxTtl: 0, tokenPeriod: 0, tokenNumUses: 0 } : role;
  const explicitMaxTtl = lesser(
    params.explicitMaxTtl,
    capped.tokenExplicitMaxTtl,
    (v) =>
      `Explicit max TTL specified both during creation call and in role; using the lesser value of ${v} seconds`,
    warnings,
  );
  const period = lesser(
    params.period,
    capped.tokenPeriod,
    (v) => `Period specified both during creation call and in role; using the lesser value of ${v} seconds`,
    warnings,
  );
  const numUses =
    capped.tokenNumUses > 0 && (params.numUses === 0 || capped.tokenNumUses < params.numUses)
      ? capped.tokenNumUses
      : params.numUses;
  const parentAccessor = role.orphan ? null : parent.accessor;

  return {
    warnings,
    spec: {
      customId: batch ? undefined : params.id,
      ...(batch ? { batch: true } : {}),
      parentAccessor,
      policies,
      meta: params.meta,
      displayName: tokenDisplayName(params.displayName),
      numUses,
      renewable: !batch && params.renewable && role.renewable,
      ttl: params.ttl,
      backendMaxTtl: 0,
      explicitMaxTtl,
      period,
      path: role.pathSuffix !== '' ? `${cmd.path}/${role.pathSuffix}` : cmd.path,
      role: role.name,
      // Vault: te.BoundCIDRs = role.TokenBoundCIDRs (auth/token/create itself takes none).
      ...(role.tokenBoundCidrs.length > 0 ? { boundCidrs: role.tokenBoundCidrs } : {}),
      entityId: parentAccessor !== null ? parent.entityId : '',
      allowNonExpiring: true,
      creatorExpires: parent.expiresAt !== 0,
    },
  };
}
