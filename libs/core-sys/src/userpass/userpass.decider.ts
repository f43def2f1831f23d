import {
  DomainError,
  invalidRequest,
  validateCidr,
  type UserpassTokenFields,
  type UserpassUserData,
} from '@coffer/contracts';
import { sanitizePolicies } from '../tokens/token-policies';
import { assertAssignable } from '../tokens/token.decider';
import type { UserpassEvent, UserTokenSettings } from './userpass.events';

export interface UserState {
  mountUuid: string;
  username: string;
  passwordHash: string;
  settings: UserTokenSettings;
}

export function evolve(state: UserState | null, event: UserpassEvent): UserState | null {
  switch (event.type) {
    case 'UserpassUserWritten': {
      const { mountUuid, username, passwordHash, settings } = event.data;
      return { mountUuid, username, passwordHash, settings };
    }
    case 'UserpassPasswordSet':
      return state && { ...state, passwordHash: event.data.passwordHash };
    case 'UserpassPoliciesSet':
      return state && { ...state, settings: { ...state.settings, tokenPolicies: event.data.tokenPolicies } };
    case 'UserpassUserDeleted':
      return null;
  }
}

/** Vault's framework.GenericNameRegex: word characters, with "-" and "." inside. */
const USERNAME = /^\w(([\w.-]+)?\w)?$/;

/** Usernames are case-insensitive (stored lower-cased); anything else is not a valid path. */
export function normalizeUsername(raw: string): string {
  if (!USERNAME.test(raw)) throw new DomainError('unsupported_path', 'unsupported path');
  return raw.toLowerCase();
}

export const DEFAULT_TOKEN_SETTINGS: UserTokenSettings = {
  tokenPolicies: [],
  tokenTtl: 0,
  tokenMaxTtl: 0,
  tokenExplicitMaxTtl: 0,
  tokenPeriod: 0,
  tokenNumUses: 0,
  tokenNoDefaultPolicy: false,
  tokenType: 'default',
  tokenBoundCidrs: [],
};

/** Vault's tokenutil.ParseTokenFields: the token_* fields of a user write, over `current`. */
export function applyTokenFields(current: UserTokenSettings, fields: UserpassTokenFields): UserTokenSettings {
  const next = { ...current };
  // The new field if given, else its deprecated alias, else keep the current value.
  const policies = fields.token_policies ?? fields.policies;
  if (policies !== undefined) next.tokenPolicies = policies.filter((p) => p !== '');
  const ttl = fields.token_ttl ?? fields.ttl;
  if (ttl !== undefined) next.tokenTtl = nonNegative(ttl, 'token_ttl');
  const maxTtl = fields.token_max_ttl ?? fields.max_ttl;
  if (maxTtl !== undefined) next.tokenMaxTtl = nonNegative(maxTtl, 'token_max_ttl');
  if (fields.token_explicit_max_ttl !== undefined)
    next.tokenExplicitMaxTtl = nonNegative(fields.token_explicit_max_ttl, 'token_explicit_max_ttl');
  if (fields.token_period !== undefined) next.tokenPeriod = nonNegative(fields.token_period, 'token_period');
  if (fields.token_num_uses !== undefined) {
    if (fields.token_num_uses < 0) throw invalidRequest("'token_num_uses' cannot be negative");
    next.tokenNumUses = fields.token_num_uses;
  }
  if (fields.token_no_default_policy !== undefined)
    next.tokenNoDefaultPolicy = fields.token_no_default_policy;
  if (fields.token_type !== undefined) next.tokenType = parseTokenType(fields.token_type);
  const cidrs = fields.token_bound_cidrs ?? fields.bound_cidrs;
  if (cidrs !== undefined) next.tokenBoundCidrs = cidrs.filter((c) => c !== '').map(validateCidr);
  // Vault's text names default_batch too, a value its users and roles no longer accept
  if (next.tokenType === 'batch') {
    if (next.tokenPeriod !== 0)
      throw invalidRequest(
        "'token_type' cannot be 'batch' or 'default_batch' when set to generate periodic tokens",
      );
    if (next.tokenNumUses !== 0)
      throw invalidRequest(
        "'token_type' cannot be 'batch' or 'default_batch' when set to generate tokens with limited use count",
      );
  }
  if (next.tokenMaxTtl > 0 && next.tokenTtl > next.tokenMaxTtl) {
    throw invalidRequest("'token_ttl' cannot be greater than 'token_max_ttl'");
  }
  return next;
}

function nonNegative(seconds: number, field: string): number {
  if (seconds < 0) throw invalidRequest(`'${field}' cannot be negative`);
  return seconds;
}

function parseTokenType(type: string): string {
  switch (type) {
    case '':
    case 'default':
      return 'default';
    // Vault's tokenutil: the default-* types are the mount's (sys/auth tune), not a user's or role's
    case 'service':
    case 'batch':
      return type;
    default:
      throw invalidRequest(`invalid 'token_type' value ${JSON.stringify(type)}`);
  }
}

// Bound CIDRs are checked by the gateway too (token_bound_cidrs on every request): one helper, in contracts.
export { cidrAllows, validateCidr } from '@coffer/contracts';

/** Policies of a login token (Vault: sanitised, default added unless token_no_default_policy). */
export function loginPolicies(settings: UserTokenSettings): string[] {
  let policies = sanitizePolicies(settings.tokenPolicies, !settings.tokenNoDefaultPolicy);
  if (settings.tokenNoDefaultPolicy) policies = policies.filter((p) => p !== 'default');
  if (policies.includes('root')) throw invalidRequest('auth methods cannot create root tokens');
  // Vault refuses internal policies (response-wrapping) at every login, whatever the method.
  assertAssignable(policies);
  return policies;
}

/** "auth/userpass/" whatever form the mount path comes in. */
export function authMountPath(mountPath: string): string {
  const rel = mountPath.startsWith('auth/') ? mountPath.slice('auth/'.length) : mountPath;
  return `auth/${rel.endsWith('/') ? rel : `${rel}/`}`;
}

/** Vault's login display name: the mount path (auth/ stripped, "/" as "-") then the user. */
export function loginDisplayName(mountPath: string, username: string): string {
  const source = authMountPath(mountPath).slice('auth/'.length).replace(/\//g, '-');
  return `${source}${username}`.replace(/-+$/, '');
}

export function userView(settings: UserTokenSettings): UserpassUserData {
  return {
    token_bound_cidrs: settings.tokenBoundCidrs,
    token_explicit_max_ttl: settings.tokenExplicitMaxTtl,
    token_max_ttl: settings.tokenMaxTtl,
    token_no_default_policy: settings.tokenNoDefaultPolicy,
    token_num_uses: settings.tokenNumUses,
    token_period: settings.tokenPeriod,
    token_policies: settings.tokenPolicies,
    token_ttl: settings.tokenTtl,
    token_type: settings.tokenType,
  };
}
