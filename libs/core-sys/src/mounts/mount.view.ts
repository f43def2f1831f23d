import {
  SYSTEM_DEFAULT_LEASE_TTL,
  SYSTEM_MAX_LEASE_TTL,
  type MountEntry,
  type MountInfoData,
  type MountListingData,
  type MountTuneData,
} from '@coffer/contracts';
import { PLUGIN_VERSION_OPTION } from '@coffer/contracts/plugins';
import { SERVICE_VERSION } from '../seal/version';
import { AUTH_PREFIX, isAuthPath, type MountRecord } from './mount.model';

/** Vault's response shapes for mount entries (logical_system.go mountInfo and friends). */

const RUNNING_VERSION = `v${SERVICE_VERSION}+builtin.coffer`;

/** Key under which a mount is listed: "secret/", or "userpass/" in the auth listing. */
export const listingKey = (m: MountRecord): string =>
  isAuthPath(m.path) ? m.path.slice(AUTH_PREFIX.length) : m.path;

export function mountInfo(m: MountRecord): MountInfoData {
  const config: MountInfoData['config'] = {
    default_lease_ttl: m.config.defaultLeaseTtl,
    max_lease_ttl: m.config.maxLeaseTtl,
    force_no_cache: m.config.forceNoCache,
  };
  if (m.config.listingVisibility !== '') config.listing_visibility = m.config.listingVisibility;
  if (isAuthPath(m.path)) config.token_type = m.config.tokenType || 'default-service';
  // Vault shows the audit keys only when some are set (SyncCache).
  Object.assign(config, auditKeysView(m));
  // An external plugin's mount carries its catalog version as an internal option (for routing).
  const { [PLUGIN_VERSION_OPTION]: pluginVersion, ...options } = m.options;
  const info: MountInfoData = {
    type: m.type,
    description: m.description,
    accessor: m.accessor,
    config,
    options: Object.keys(options).length > 0 ? options : null,
    local: m.local,
    seal_wrap: m.sealWrap,
    external_entropy_access: m.externalEntropyAccess,
    uuid: m.uuid,
    plugin_version: pluginVersion ?? '',
    running_plugin_version: pluginVersion ?? RUNNING_VERSION,
    running_sha256: '',
  };
  if (m.table !== 'system' && pluginVersion === undefined) info.deprecation_status = 'supported';
  return info;
}

/** GET sys/mounts or sys/auth: "<path>/" -> entry. */
export function mountListing(mounts: readonly MountRecord[], auth: boolean): MountListingData {
  const out: MountListingData = {};
  for (const m of [...mounts].sort((a, b) => a.path.localeCompare(b.path))) {
    if (isAuthPath(m.path) === auth) out[listingKey(m)] = mountInfo(m);
  }
  return out;
}

/** GET .../tune: the resolved TTLs in seconds. */
export function tuneInfo(m: MountRecord): MountTuneData {
  const out: MountTuneData = {
    default_lease_ttl: m.config.defaultLeaseTtl || SYSTEM_DEFAULT_LEASE_TTL,
    max_lease_ttl: m.config.maxLeaseTtl || SYSTEM_MAX_LEASE_TTL,
    force_no_cache: m.config.forceNoCache,
    description: m.description,
  };
  if (m.config.listingVisibility !== '') out.listing_visibility = m.config.listingVisibility;
  if (isAuthPath(m.path)) out.token_type = m.config.tokenType || 'default-service';
  Object.assign(out, auditKeysView(m));
  if (Object.keys(m.options).length > 0) out.options = { ...m.options };
  return out;
}

function auditKeysView(m: MountRecord): {
  audit_non_hmac_request_keys?: string[];
  audit_non_hmac_response_keys?: string[];
} {
  const { auditNonHmacRequestKeys: req, auditNonHmacResponseKeys: res } = m.config;
  return {
    ...(req.length > 0 ? { audit_non_hmac_request_keys: [...req] } : {}),
    ...(res.length > 0 ? { audit_non_hmac_response_keys: [...res] } : {}),
  };
}

/** The routing entry sent to the gateway and the engine services (coreMountTable). */
export function toMountEntry(m: MountRecord): MountEntry {
  return {
    path: m.path,
    uuid: m.uuid,
    accessor: m.accessor,
    type: m.type,
    namespace: m.namespace ?? '',
    options: { ...m.options },
    config: { default_lease_ttl: m.config.defaultLeaseTtl, max_lease_ttl: m.config.maxLeaseTtl },
    description: m.description,
    table: m.table,
    local: m.local,
    seal_wrap: m.sealWrap,
    ...auditKeysView(m),
    ...(m.tainted ? { tainted: true } : {}),
  };
}
