import { BlockList, isIP } from 'node:net';
import { DomainError, invalidRequest } from '@coffer/contracts';
import { parseStringList, sanitizePolicies } from '../tokens/token-policies';
import { weakBool, weakDuration, weakInt, weakString } from '../tokens/weak-decode';
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

/** The new field if given, else its deprecated alias, else undefined (keep the current value). */
function pick(body: Record<string, unknown>, field: string, deprecated?: string): unknown {
  if (body[field] !== undefined) return body[field];
  return deprecated !== undefined ? body[deprecated] : undefined;
}

/** Vault's tokenutil.ParseTokenFields: the token_* fields of a user write, over `current`. */
export function applyTokenFields(
  current: UserTokenSettings,
  body: Record<string, unknown>,
): UserTokenSettings {
  const next = { ...current };
  const policies = parseStringList(pick(body, 'token_policies', 'policies'));
  if (policies !== undefined) next.tokenPolicies = policies;
  const ttl = weakDuration(pick(body, 'token_ttl', 'ttl'), 'token_ttl');
  if (ttl !== undefined) next.tokenTtl = nonNegative(ttl, 'token_ttl');
  const maxTtl = weakDuration(pick(body, 'token_max_ttl', 'max_ttl'), 'token_max_ttl');
  if (maxTtl !== undefined) next.tokenMaxTtl = nonNegative(maxTtl, 'token_max_ttl');
  const explicitMax = weakDuration(body['token_explicit_max_ttl'], 'token_explicit_max_ttl');
  if (explicitMax !== undefined)
    next.tokenExplicitMaxTtl = nonNegative(explicitMax, 'token_explicit_max_ttl');
  const period = weakDuration(body['token_period'], 'token_period');
  if (period !== undefined) next.tokenPeriod = nonNegative(period, 'token_period');
  const numUses = weakInt(body['token_num_uses'], 'token_num_uses');
  if (numUses !== undefined) {
    if (numUses < 0) throw invalidRequest("'token_num_uses' cannot be negative");
    next.tokenNumUses = numUses;
  }
  const noDefault = weakBool(body['token_no_default_policy'], 'token_no_default_policy');
  if (noDefault !== undefined) next.tokenNoDefaultPolicy = noDefault;
  const type = weakString(body['token_type'], 'token_type');
  if (type !== undefined) next.tokenType = parseTokenType(type);
  const cidrs = parseStringList(pick(body, 'token_bound_cidrs', 'bound_cidrs'));
  if (cidrs !== undefined) next.tokenBoundCidrs = cidrs.map(validateCidr);
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
    case 'service':
    case 'default-service':
      return type;
    case 'batch':
    case 'default-batch':
      throw invalidRequest('batch tokens are not supported');
    default:
      throw invalidRequest(`invalid 'token_type' value ${JSON.stringify(type)}`);
  }
}

/** An IP address or CIDR block, normalised; Vault's bound-CIDR error text otherwise. */
export function validateCidr(value: string): string {
  const [addr = '', bits, extra] = value.split('/');
  const family = isIP(addr);
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d+$/.test(bits) ? Number(bits) : NaN;
  if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
    throw invalidRequest(`invalid value ${JSON.stringify(value)} when parsing bound cidrs`);
  }
  return `${addr}/${prefix}`;
}

/** Whether `address` may log in under these bound CIDRs (none = anywhere). */
export function cidrAllows(cidrs: readonly string[], address: string): boolean {
  if (cidrs.length === 0) return true;
  const family = isIP(address);
  if (family === 0) return false;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [addr = '', bits = ''] = cidr.split('/');
    const type = isIP(addr) === 4 ? 'ipv4' : 'ipv6';
    list.addSubnet(addr, Number(bits), type);
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Policies of a login token (Vault: sanitised, default added unless token_no_default_policy). */
export function loginPolicies(settings: UserTokenSettings): string[] {
  let policies = sanitizePolicies(settings.tokenPolicies, !settings.tokenNoDefaultPolicy);
  if (settings.tokenNoDefaultPolicy) policies = policies.filter((p) => p !== 'default');
  if (policies.includes('root')) throw invalidRequest('auth methods cannot create root tokens');
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

export function userView(settings: UserTokenSettings): Record<string, unknown> {
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
