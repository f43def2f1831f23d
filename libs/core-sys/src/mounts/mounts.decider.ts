import {
  DomainError,
  invalidRequest,
  SYSTEM_MAX_LEASE_TTL,
  type MountableKind,
  type MountCatalogue,
  type SysMountEnableBody,
  type SysMountTuneBody,
} from '@coffer/contracts';
import { AUTH_PREFIX, isAuthPath, type MountIds, type MountRecord } from './mount.model';
import { checkOnePluginVersion } from './plugin-version.decider';
import { PLUGIN_VERSION_OPTION } from '@coffer/contracts/plugins';
import type { MountEvent } from './mounts.events';
import { evolveRemount } from './remount.evolve';

/**
 * Pure mount-table rules (Vault's mount.go / credential.go / logical_system.go): path
 * normalisation, protected paths, singleton types, overlapping prefixes, kv versions, tuning.
 */

/** Secrets engines may not live under these (they belong to the core). */
export const PROTECTED_MOUNT_PREFIXES = ['audit/', 'auth/', 'sys/', 'cubbyhole/', 'identity/'] as const;
/** Built-in types of which exactly one instance exists. */
export const SINGLETON_TYPES = ['cubbyhole', 'system', 'token', 'identity'] as const;
/** Mounts whose settings cannot be tuned. */
export const UNTUNABLE_PREFIXES = ['cubbyhole/', 'sys/', 'audit/', 'identity/'] as const;
const KV_VERSIONS = new Set(['1', '2']);

/** sanitizeMountPath: no leading slash, exactly one trailing slash. */
export function sanitizeMountPath(path: string): string {
  let p = path.replace(/^\/+/, '');
  if (!p.endsWith('/')) p += '/';
  return p;
}

/** "userpass", "auth/userpass", "auth/userpass/" -> "auth/userpass/". */
export function authRoutingPath(path: string): string {
  const p = sanitizeMountPath(path);
  return isAuthPath(p) ? p : AUTH_PREFIX + p;
}

/** Longest mount whose path prefixes `path` (Vault's MatchingMountEntry). */
export function matchingMount(table: readonly MountRecord[], path: string): MountRecord | undefined {
  let best: MountRecord | undefined;
  for (const m of table) {
    if (path.startsWith(m.path) && (!best || m.path.length > best.path.length)) best = m;
  }
  return best;
}

export interface EnableInput {
  type: string;
  description: string;
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
  forceNoCache: boolean;
  listingVisibility: string;
  tokenType: string;
  auditNonHmacRequestKeys: string[];
  auditNonHmacResponseKeys: string[];
  options: Record<string, string>;
  local: boolean;
  sealWrap: boolean;
  externalEntropyAccess: boolean;
}

export interface TuneInput {
  /** undefined = unchanged; 0 = back to the system default */
  defaultLeaseTtl?: number;
  maxLeaseTtl?: number;
  description?: string;
  options?: Record<string, string>;
  listingVisibility?: string;
  tokenType?: string;
  auditNonHmacRequestKeys?: string[];
  auditNonHmacResponseKeys?: string[];
}

/** A comma string slice as Vault's tune reads it: "" (or nothing) is no keys. */
const keyList = (keys: readonly string[]): string[] => keys.filter((k) => k !== '');

const TOKEN_TYPES = new Set(['', 'default-service', 'default-batch', 'service', 'batch']);

/** Only auth methods have a token type (sys/mounts/auth/x/tune tunes one too, so it is not the route's). */
function checkTokenType(value: string): string {
  if (!TOKEN_TYPES.has(value)) throw invalidRequest(`invalid value for "token_type": ${value}`);
  return value;
}

/** handleMount / handleEnableAuth: the parsed body, with the TTL rules between its fields. */
export function enableInputOf(body: SysMountEnableBody, auth: boolean): EnableInput {
  const config: Partial<NonNullable<SysMountEnableBody['config']>> = body.config ?? {};
  const defaultLeaseTtl = config.default_lease_ttl ?? 0;
  const maxLeaseTtl = config.max_lease_ttl ?? 0;
  if (maxLeaseTtl !== 0 && defaultLeaseTtl > maxLeaseTtl) {
    throw invalidRequest('given default lease TTL greater than given max lease TTL');
  }
  if (defaultLeaseTtl > SYSTEM_MAX_LEASE_TTL && maxLeaseTtl === 0) {
    throw invalidRequest(
      `given default lease TTL greater than system max lease TTL of ${SYSTEM_MAX_LEASE_TTL}`,
    );
  }
  return {
    type: body.type,
    description: body.description,
    defaultLeaseTtl,
    maxLeaseTtl,
    forceNoCache: config.force_no_cache ?? false,
    listingVisibility: config.listing_visibility ?? '',
    tokenType: auth ? checkTokenType(config.token_type ?? '') || 'default-service' : '',
    auditNonHmacRequestKeys: keyList(config.audit_non_hmac_request_keys ?? []),
    auditNonHmacResponseKeys: keyList(config.audit_non_hmac_response_keys ?? []),
    options: body.options ?? {},
    local: body.local ?? false,
    sealWrap: body.seal_wrap ?? false,
    externalEntropyAccess: body.external_entropy_access ?? false,
  };
}

/** handleTuneWriteCommon: what the body changes ("" and empty options change nothing). */
export function tuneInputOf(body: SysMountTuneBody, auth: boolean): TuneInput {
  const out: TuneInput = {};
  if (body.default_lease_ttl !== undefined) out.defaultLeaseTtl = body.default_lease_ttl;
  if (body.max_lease_ttl !== undefined) out.maxLeaseTtl = body.max_lease_ttl;
  if (body.description !== undefined && body.description !== '') out.description = body.description;
  if (body.options !== undefined && Object.keys(body.options).length > 0) out.options = body.options;
  if (body.listing_visibility !== undefined) out.listingVisibility = body.listing_visibility;
  if (auth && body.token_type !== undefined && body.token_type !== '')
    out.tokenType = checkTokenType(body.token_type);
  if (body.audit_non_hmac_request_keys !== undefined)
    out.auditNonHmacRequestKeys = keyList(body.audit_non_hmac_request_keys);
  if (body.audit_non_hmac_response_keys !== undefined)
    out.auditNonHmacResponseKeys = keyList(body.audit_non_hmac_response_keys);
  return out;
}

const conflict = (at: string): DomainError => invalidRequest(`path is already in use at ${at}`);

/** Vault's plugin catalog lookup: the type must be a catalogued one of this kind. */
function checkCatalogued(catalogue: MountCatalogue, kind: MountableKind, type: string): void {
  if (catalogue.get(type)?.kind !== kind) throw invalidRequest(`plugin not found in the catalog: ${type}`);
}

/** Resolves kv aliases and checks the version option (handleMount). */
function resolveSecretType(input: EnableInput): { type: string; options: Record<string, string> } {
  const options = { ...input.options };
  let type = input.type;
  if (type === 'kv-v1' || type === 'kv-v2') {
    options['version'] = type === 'kv-v1' ? '1' : '2';
    type = 'kv';
  } else if (type !== 'kv' && (options['version'] ?? '') !== '') {
    throw invalidRequest(`secrets engine "${type}" does not allow setting a version`);
  }
  return { type, options };
}

export function decideEnableSecret(
  table: readonly MountRecord[],
  rawPath: string,
  input: EnableInput,
  ids: MountIds,
  catalogue: MountCatalogue,
): MountEvent {
  if (input.type === '') throw invalidRequest('backend type must be specified as a string');
  const { type, options } = resolveSecretType(input);
  const path = sanitizeMountPath(rawPath);
  if (path === '/') throw invalidRequest('backend path must be specified');
  if (PROTECTED_MOUNT_PREFIXES.some((p) => path.startsWith(p)))
    throw invalidRequest(`cannot mount "${path}"`);
  if ((SINGLETON_TYPES as readonly string[]).includes(type)) {
    throw invalidRequest(`mount type of "${type}" is not mountable`);
  }
  for (const m of table) {
    if (isAuthPath(m.path)) continue;
    if (m.path.startsWith(path) || path.startsWith(m.path)) throw conflict(m.path);
  }
  checkCatalogued(catalogue, 'secret', type);
  checkOnePluginVersion(table, type, options[PLUGIN_VERSION_OPTION]);
  if (type === 'kv') {
    const version = options['version'] || '1';
    if (!KV_VERSIONS.has(version)) throw invalidRequest('invalid version specified');
    options['version'] = version;
  }
  return {
    type: 'MountEnabled',
    data: {
      uuid: ids.uuid(),
      path,
      table: 'secret',
      type,
      description: input.description,
      accessor: `${type}_${ids.suffix()}`,
      options,
      config: {
        defaultLeaseTtl: input.defaultLeaseTtl,
        maxLeaseTtl: input.maxLeaseTtl,
        forceNoCache: input.forceNoCache,
        listingVisibility: input.listingVisibility,
        tokenType: '',
        auditNonHmacRequestKeys: input.auditNonHmacRequestKeys,
        auditNonHmacResponseKeys: input.auditNonHmacResponseKeys,
      },
      local: input.local,
      sealWrap: input.sealWrap,
      externalEntropyAccess: input.externalEntropyAccess,
    },
  };
}

export function decideEnableAuth(
  table: readonly MountRecord[],
  rawPath: string,
  input: EnableInput,
  ids: MountIds,
  catalogue: MountCatalogue,
): MountEvent {
  if (input.type === '') throw invalidRequest('backend type must be specified as a string');
  const relative = sanitizeMountPath(rawPath);
  if (relative === '/') throw invalidRequest('backend path must be specified');
  if (input.type === 'token') throw invalidRequest('token credential backend cannot be instantiated');
  for (const m of table) {
    if (!isAuthPath(m.path)) continue;
    const existing = m.path.slice(AUTH_PREFIX.length);
    if (existing.startsWith(relative) || relative.startsWith(existing)) throw conflict(existing);
  }
  checkCatalogued(catalogue, 'auth', input.type);
  return {
    type: 'AuthMethodEnabled',
    data: {
      uuid: ids.uuid(),
      path: AUTH_PREFIX + relative,
      table: 'auth',
      type: input.type,
      description: input.description,
      accessor: `auth_${input.type}_${ids.suffix()}`,
      options: input.options,
      config: {
        defaultLeaseTtl: input.defaultLeaseTtl,
        maxLeaseTtl: input.maxLeaseTtl,
        forceNoCache: input.forceNoCache,
        listingVisibility: input.listingVisibility,
        tokenType: input.tokenType || 'default-service',
        auditNonHmacRequestKeys: input.auditNonHmacRequestKeys,
        auditNonHmacResponseKeys: input.auditNonHmacResponseKeys,
      },
      local: input.local,
      sealWrap: input.sealWrap,
      externalEntropyAccess: input.externalEntropyAccess,
    },
  };
}

/** Disabling a path that is not mounted succeeds without an event (Vault does not reveal it). */
export function decideDisableSecret(table: readonly MountRecord[], rawPath: string): MountEvent | undefined {
  const path = sanitizeMountPath(rawPath);
  if (PROTECTED_MOUNT_PREFIXES.some((p) => path.startsWith(p)))
    throw invalidRequest(`cannot unmount "${path}"`);
  const mount = table.find((m) => m.path === path);
  if (!mount || mount.table === 'system') return undefined;
  return { type: 'MountDisabled', data: { uuid: mount.uuid, path: mount.path, type: mount.type } };
}

export function decideDisableAuth(table: readonly MountRecord[], rawPath: string): MountEvent | undefined {
  const path = authRoutingPath(rawPath);
  if (path === 'auth/token/') throw invalidRequest('token credential backend cannot be disabled');
  const mount = table.find((m) => m.path === path);
  if (!mount) return undefined;
  return { type: 'AuthMethodDisabled', data: { uuid: mount.uuid, path: mount.path, type: mount.type } };
}

/** Vault's taintMountEntry: marks the mount being unmounted (once). */
export function decideTaint(table: readonly MountRecord[], uuid: string): MountEvent | undefined {
  const mount = table.find((m) => m.uuid === uuid);
  if (!mount || mount.tainted === true) return undefined;
  return { type: 'MountTainted', data: { uuid: mount.uuid, path: mount.path } };
}

export interface TuneDecision {
  event: MountEvent | undefined;
  warnings: string[];
}

/** handleTuneWriteCommon: `path` is the routing path ("secret/", "auth/userpass/"). */
export function decideTune(table: readonly MountRecord[], rawPath: string, input: TuneInput): TuneDecision {
  const path = sanitizeMountPath(rawPath);
  if (UNTUNABLE_PREFIXES.some((p) => path.startsWith(p))) throw invalidRequest(`cannot tune "${path}"`);
  const mount = matchingMount(table, path);
  if (!mount) throw invalidRequest(`tune of path "${path}" failed: no mount entry found`);
  const warnings: string[] = [];
  const config = { ...mount.config };
  const newDefault = input.defaultLeaseTtl ?? config.defaultLeaseTtl;
  const newMax = input.maxLeaseTtl ?? config.maxLeaseTtl;
  if (newDefault !== 0 && newMax !== 0 && newMax < newDefault) {
    throw invalidRequest(
      `backend max lease TTL of ${newMax} would be less than backend default lease TTL of ${newDefault}`,
    );
  }
  config.defaultLeaseTtl = newDefault;
  config.maxLeaseTtl = newMax;
  if (input.listingVisibility !== undefined) config.listingVisibility = input.listingVisibility;
  if (input.tokenType !== undefined && mount.table !== 'secret') config.tokenType = input.tokenType;
  if (input.auditNonHmacRequestKeys !== undefined)
    config.auditNonHmacRequestKeys = input.auditNonHmacRequestKeys;
  if (input.auditNonHmacResponseKeys !== undefined)
    config.auditNonHmacResponseKeys = input.auditNonHmacResponseKeys;
  const options = { ...mount.options };
  if (input.options) {
    const requested = input.options['version'];
    if (requested !== undefined && mount.type === 'kv') {
      const current = Number(mount.options['version'] ?? '1');
      const next = Number(requested);
      if (!Number.isInteger(next))
        throw invalidRequest(`unable to parse options: invalid version "${requested}"`);
      if (current > next) throw invalidRequest(`cannot downgrade mount from version ${current}`);
      if (!KV_VERSIONS.has(String(next))) throw invalidRequest('invalid version specified');
      if (current < next) {
        warnings.push(
          `Upgrading mount from version ${current} to version ${next}. This mount will be unavailable for a brief period and will resume service shortly.`,
        );
      }
    }
    Object.assign(options, input.options);
  }
  const description = input.description ?? mount.description;
  const unchanged =
    description === mount.description &&
    JSON.stringify(config) === JSON.stringify(mount.config) &&
    JSON.stringify(options) === JSON.stringify(mount.options);
  if (unchanged) return { event: undefined, warnings };
  const type = isAuthPath(mount.path) ? 'AuthMethodTuned' : 'MountTuned';
  return { event: { type, data: { uuid: mount.uuid, description, config, options } }, warnings };
}

/** The built-in mounts every initialised server has (Vault's default mount table). */
export function defaultMounts(ids: MountIds): MountEvent[] {
  const config = {
    defaultLeaseTtl: 0,
    maxLeaseTtl: 0,
    forceNoCache: false,
    listingVisibility: '',
    tokenType: '',
    auditNonHmacRequestKeys: [],
    auditNonHmacResponseKeys: [],
  };
  const builtin = (
    path: string,
    type: string,
    description: string,
    local: boolean,
    accessorPrefix: string,
  ): MountEvent => ({
    type: path.startsWith(AUTH_PREFIX) ? 'AuthMethodEnabled' : 'MountEnabled',
    data: {
      uuid: ids.uuid(),
      path,
      table: 'system',
      type,
      description,
      accessor: `${accessorPrefix}_${ids.suffix()}`,
      options: {},
      config: type === 'token' ? { ...config, tokenType: 'default-service' } : config,
      local,
      sealWrap: false,
      externalEntropyAccess: false,
    },
  });
  return [
    builtin('cubbyhole/', 'cubbyhole', 'per-token private secret storage', true, 'cubbyhole'),
    builtin('identity/', 'identity', 'identity store', false, 'identity'),
    builtin('sys/', 'system', 'system endpoints used for control, policy and debugging', false, 'system'),
    builtin('auth/token/', 'token', 'token based credentials', false, 'auth_token'),
  ];
}

/** Applies one event to the table (used by the projection's tests and by replays). */
export function evolveMounts(table: readonly MountRecord[], event: MountEvent): MountRecord[] {
  switch (event.type) {
    case 'MountEnabled':
    case 'AuthMethodEnabled':
      return [...table.filter((m) => m.uuid !== event.data.uuid), event.data];
    case 'MountTuned':
    case 'AuthMethodTuned': {
      const { uuid, description, config, options } = event.data;
      return table.map((m) => (m.uuid === uuid ? { ...m, description, config, options } : m));
    }
    case 'MountDisabled':
    case 'AuthMethodDisabled':
      return table.filter((m) => m.uuid !== event.data.uuid);
    case 'MountTainted':
      return table.map((m) => (m.uuid === event.data.uuid ? { ...m, tainted: true } : m));
    case 'MountMigrationStarted':
    case 'MountMoved':
    case 'MountMigrationFailed':
      return evolveRemount(table, event);
  }
}
