import { addressedMountPath, DomainError, enablesLocalMount, type RouteDef } from '@coffer/contracts';
import type { ReplicationModes } from '@coffer/contracts/replication';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpResult } from '../response/envelope';
import type { MountIndex } from '../routing/mount-index';

/** Vault's answer to a client request on a DR secondary. */
export const DR_SECONDARY_REFUSAL = 'path disabled in replication DR secondary mode';

/**
 * What a DR secondary still answers (Vault: replication, health and seal handling; every other
 * request is refused, the secondary holds the primary's data for a failover only).
 */
const DR_SECONDARY_PATHS = [
  /^sys\/replication\/(dr\/)?status$/,
  /^sys\/replication\/performance\/status$/,
  /^sys\/replication\/dr\/secondary\//,
  /^sys\/(health|seal-status|seal|unseal|init|leader|decode-token)$/,
  /^sys\/generate-root\//,
];

export function drSecondaryAllows(fullPath: string): boolean {
  const path = fullPath.replace(/\/+$/, '');
  return DR_SECONDARY_PATHS.some((re) => re.test(path) || re.test(`${path}/`));
}

/** Vault's text for a write a secondary was told not to forward (X-Vault-No-Request-Forwarding). */
export const READ_ONLY_STORAGE = 'cannot write to readonly storage';

/** Request headers that keep a request on this cluster (Vault's, and Coffer's name for it). */
const NO_FORWARDING_HEADERS = ['x-service-no-request-forwarding', 'x-vault-no-request-forwarding'];

export function noForwardingAsked(headers: IncomingHttpHeaders): boolean {
  return NO_FORWARDING_HEADERS.some((name) => {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    // Vault: any non-empty value
    return value !== undefined && value !== '';
  });
}

/** What a request goes to: its service, and whether its mount is local to this cluster. */
export interface ModeTarget {
  service: string;
  local: boolean;
  /** the route's `replicated` flag (the writes a performance secondary forwards) */
  replicated?: RouteDef['replicated'];
  /**
   * For a `replicated: 'mount'` route, once the body is read: whether the mount it addresses,
   * or enables, is local to this cluster (`addressesLocalMount`). Unknown before.
   */
  addressedLocal?: boolean;
}

/**
 * Whether a `replicated: 'mount'` write addresses a mount local to this cluster: it enables one
 * with `local: true`, or disables, tunes or remounts (`from`) one of this cluster's local mounts.
 */
export function addressesLocalMount(
  index: MountIndex,
  namespace: string,
  route: Pick<RouteDef, 'pattern'>,
  params: Readonly<Record<string, unknown>>,
  body: unknown,
): boolean {
  if (enablesLocalMount(body)) return true;
  const path = addressedMountPath(route, params, body);
  if (path === undefined) return false;
  const hit = index.find(namespace + path);
  return hit !== undefined && hit.rel === '' && hit.entry.local;
}

/**
 * Where a request is served in this cluster's replication mode: on a DR secondary every client
 * request but replication, health and seal is refused (400 with Vault's text); on a performance
 * secondary a write through a route flagged `replicated` (kv v1 and v2 writes; core-sys's mounts,
 * auth methods, policies, namespaces, users, roles, identity, token roles, password policies; the
 * engines' configuration and roles) is forwarded to the primary (`forward`) unless its mount is
 * local (a local kv mount's secrets, a `local: true` auth method's users) or, for a route
 * addressing a mount, that mount is local or enabled as local (decided once the body is read:
 * `local` until `addressedLocal` is known); a client that asked for no forwarding gets Vault's
 * read-only refusal instead. Everything else is served here (`local`): local mounts, cubbyhole,
 * tokens, leases, logins, seal, replication.
 */
export function servedInMode(
  modes: ReplicationModes,
  fullPath: string,
  write: boolean,
  target: ModeTarget | undefined,
  headers: IncomingHttpHeaders,
): 'local' | 'forward' {
  if (modes.dr === 'secondary' && !drSecondaryAllows(fullPath))
    throw new DomainError('invalid_request', DR_SECONDARY_REFUSAL);
  if (modes.performance !== 'secondary' || !write || !target) return 'local';
  if (!target.replicated || target.local) return 'local';
  if (target.replicated === 'mount' && target.addressedLocal !== false) return 'local';
  if (noForwardingAsked(headers)) throw new DomainError('invalid_request', READ_ONLY_STORAGE);
  return 'forward';
}

interface HealthBody {
  initialized?: unknown;
  sealed?: unknown;
  replication_dr_mode?: unknown;
  replication_performance_mode?: unknown;
}

/**
 * sys/health with the replication modes: the body names them (core-sys does not know them) and
 * an unsealed DR secondary answers `drsecondarycode` (default 472), which Vault checks right
 * after the seal, before the standby codes. core-sys already refused a non-integer code (400).
 */
export function healthWithReplication(
  result: HttpResult,
  modes: ReplicationModes,
  query: Readonly<Record<string, string | undefined>>,
): HttpResult {
  if (result.status === 400) return result;
  const codeOf = (name: string, fallback: number): number => {
    const raw = query[name];
    return raw === undefined ? fallback : Number(raw);
  };
  let body: HealthBody | undefined;
  if (result.body !== undefined) {
    try {
      body = JSON.parse(result.body) as HealthBody;
    } catch {
      return result;
    }
    body.replication_dr_mode = modes.dr;
    body.replication_performance_mode = modes.performance;
  }
  // HEAD has no body: the status core-sys chose tells sealed and uninitialised apart
  const unsealed = body
    ? body.initialized === true && body.sealed === false
    : result.status !== codeOf('sealedcode', 503) && result.status !== codeOf('uninitcode', 501);
  const status = modes.dr === 'secondary' && unsealed ? codeOf('drsecondarycode', 472) : result.status;
  return { ...result, status, body: body ? JSON.stringify(body) : result.body };
}
