import { invalidRequest, type TokenRoleBody, type TokenRoleData } from '@coffer/contracts';
import type { TOKEN_ROLE_TYPES, TokenRoleEvent, TokenRoleWrittenData } from './token-role.events';
import { dedupeSorted, sanitizePolicies } from '../tokens/token-policies';

/** A role as the decisions see it (the read model row). */
export type TokenRoleState = Omit<TokenRoleWrittenData, 'writtenAt'>;
export type TokenRoleType = (typeof TOKEN_ROLE_TYPES)[number];

export function evolveRole(state: TokenRoleState | null, event: TokenRoleEvent): TokenRoleState | null {
  switch (event.type) {
    case 'TokenRoleWritten': {
      const { writtenAt: _w, ...role } = event.data;
      return role;
    }
    case 'TokenRoleDeleted':
      return null;
  }
}

/** Vault's framework.GenericNameRegex, which the roles/<name> path pattern is built with. */
const ROLE_NAME = /^\w(([\w.-]+)?\w)?$/;
/** Vault's pathSuffixSanitize. */
const PATH_SUFFIX = /\w[\w-.]+\w/;

export function assertRoleName(name: string): void {
  if (name === '') throw invalidRequest('role name cannot be empty');
  if (!ROLE_NAME.test(name)) throw invalidRequest(`invalid role name ${JSON.stringify(name)}`);
}

const ROLE_DEFAULTS = (name: string): TokenRoleState => ({
  name,
  allowedPolicies: [],
  disallowedPolicies: [],
  allowedPoliciesGlob: [],
  disallowedPoliciesGlob: [],
  allowedEntityAliases: null,
  orphan: false,
  renewable: true,
  pathSuffix: '',
  tokenType: 'default-service',
  tokenNoDefaultPolicy: false,
  period: 0,
  tokenPeriod: 0,
  explicitMaxTtl: 0,
  tokenExplicitMaxTtl: 0,
  tokenBoundCidrs: [],
  tokenNumUses: 0,
});

/** Vault's strutil.RemoveDuplicates(list, lowercase=true): trimmed, lower-cased, no empties, sorted. */
function lowerSet(list: readonly string[]): string[] {
  return dedupeSorted(list.map((p) => p.trim().toLowerCase()).filter((p) => p !== ''));
}

/**
 * Vault's tokenStoreRoleCreateUpdate: the given fields over the current role (or the defaults
 * on create), with its value rules. The deprecated period / explicit_max_ttl apply only when
 * their token_ counterpart is not given.
 */
export function applyRoleFields(
  name: string,
  current: TokenRoleState | undefined,
  body: TokenRoleBody,
): TokenRoleState {
  const role: TokenRoleState = { ...(current ?? ROLE_DEFAULTS(name)) };
  if (body.orphan !== undefined) role.orphan = body.orphan;
  if (body.renewable !== undefined) role.renewable = body.renewable;
  if (body.token_no_default_policy !== undefined) role.tokenNoDefaultPolicy = body.token_no_default_policy;
  if (body.token_period !== undefined) {
    role.tokenPeriod = body.token_period;
    role.period = 0;
  } else if (body.period !== undefined) {
    role.period = body.period;
    role.tokenPeriod = body.period;
  }
  if (body.token_explicit_max_ttl !== undefined) {
    role.tokenExplicitMaxTtl = body.token_explicit_max_ttl;
    role.explicitMaxTtl = 0;
  } else if (body.explicit_max_ttl !== undefined) {
    role.explicitMaxTtl = body.explicit_max_ttl;
    role.tokenExplicitMaxTtl = body.explicit_max_ttl;
  }
  for (const [field, value] of [
    ['token_period', role.tokenPeriod],
    ['token_explicit_max_ttl', role.tokenExplicitMaxTtl],
  ] as const) {
    if (value < 0) throw invalidRequest(`${field} must be positive`);
  }
  if (body.token_num_uses !== undefined) {
    if (body.token_num_uses < 0) throw invalidRequest('token_num_uses cannot be negative');
    role.tokenNumUses = body.token_num_uses;
  }
  const cidrs = body.token_bound_cidrs ?? body.bound_cidrs;
  if (cidrs !== undefined) role.tokenBoundCidrs = cidrs.filter((c) => c !== '').map(assertCidr);
  if (body.path_suffix !== undefined) {
    if (body.path_suffix !== '' && !PATH_SUFFIX.test(body.path_suffix)) {
      throw invalidRequest(
        `given role path suffix contains invalid characters; must match ${PATH_SUFFIX.source}`,
      );
    }
    role.pathSuffix = body.path_suffix;
  }
  if (role.pathSuffix.includes('..')) {
    throw invalidRequest("error registering path suffix: path cannot contain parent references ('..')");
  }
  if (body.allowed_policies !== undefined)
    role.allowedPolicies = sanitizePolicies(body.allowed_policies, false);
  if (body.disallowed_policies !== undefined) role.disallowedPolicies = lowerSet(body.disallowed_policies);
  if (body.allowed_policies_glob !== undefined)
    role.allowedPoliciesGlob = lowerSet(body.allowed_policies_glob);
  if (body.disallowed_policies_glob !== undefined)
    role.disallowedPoliciesGlob = lowerSet(body.disallowed_policies_glob);
  if (body.allowed_entity_aliases !== undefined)
    role.allowedEntityAliases = lowerSet(body.allowed_entity_aliases);
  if (body.token_type !== undefined) role.tokenType = roleTokenType(body.token_type);
  assertBatchRole(role);
  return role;
}

function roleTokenType(value: string): TokenRoleType {
  switch (value) {
    case 'service':
    case 'batch':
    case 'default-service':
    case 'default-batch':
      return value;
    // Vault stores "default" as default-service.
    case 'default':
      return 'default-service';
    default:
      throw invalidRequest(`invalid 'token_type' value ${JSON.stringify(value)}`);
  }
}

function assertBatchRole(role: TokenRoleState): void {
  if (role.tokenType !== 'batch') return;
  const problem = !role.orphan
    ? 'non-orphan tokens'
    : role.period !== 0 || role.tokenPeriod !== 0
      ? 'periodic tokens'
      : role.renewable
        ? 'renewable tokens'
        : role.explicitMaxTtl !== 0 || role.tokenExplicitMaxTtl !== 0
          ? 'tokens with an explicit max TTL'
          : undefined;
  if (problem) throw invalidRequest(`'token_type' cannot be 'batch' when role is set to generate ${problem}`);
}

const IPV4_CIDR = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IPV6_CIDR = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/;

function assertCidr(value: string): string {
  const ok =
    (IPV4_CIDR.test(value) &&
      value
        .split('/')[0]!
        .split('.')
        .every((o) => Number(o) <= 255) &&
      Number(value.split('/')[1] ?? '32') <= 32) ||
    (value.includes(':') && IPV6_CIDR.test(value));
  if (!ok) throw invalidRequest(`invalid value ${JSON.stringify(value)} when parsing bound cidrs`);
  return value;
}

/** Vault's tokenStoreRoleRead. */
export function roleView(role: TokenRoleState): TokenRoleData {
  return {
    name: role.name,
    allowed_policies: role.allowedPolicies,
    disallowed_policies: role.disallowedPolicies,
    allowed_policies_glob: role.allowedPoliciesGlob,
    disallowed_policies_glob: role.disallowedPoliciesGlob,
    allowed_entity_aliases: role.allowedEntityAliases,
    orphan: role.orphan,
    renewable: role.renewable,
    path_suffix: role.pathSuffix,
    token_type: role.tokenType,
    token_no_default_policy: role.tokenNoDefaultPolicy,
    period: role.period,
    token_period: role.tokenPeriod,
    explicit_max_ttl: role.explicitMaxTtl,
    token_explicit_max_ttl: role.tokenExplicitMaxTtl,
    ...(role.tokenBoundCidrs.length > 0 ? { token_bound_cidrs: role.tokenBoundCidrs } : {}),
    ...(role.tokenNumUses > 0 ? { token_num_uses: role.tokenNumUses } : {}),
  };
}
