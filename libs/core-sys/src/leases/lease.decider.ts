import { DomainError, invalidRequest, type EngineSecret, type MountInfo } from '@coffer/contracts';
import type { LeaseEvent, LeaseIssuedData } from './lease.events';
import { humanDuration } from '../tokens/token-ttl';

/** A live lease (revoked leases are gone: their stream ends with LeaseRevoked). */
export interface LeaseState extends Omit<LeaseIssuedData, 'internal'> {
  internal: Record<string, unknown>;
  lastRenewal: number | null;
  attempts: number;
  nextAttemptAt: number;
  irrevocable: boolean;
  lastError: string;
}

export function evolve(state: LeaseState | null, event: LeaseEvent): LeaseState | null {
  switch (event.type) {
    case 'LeaseIssued':
      return {
        ...event.data,
        lastRenewal: null,
        attempts: 0,
        nextAttemptAt: 0,
        irrevocable: false,
        lastError: '',
      };
    case 'LeaseRenewed':
      return state && { ...state, lastRenewal: event.data.renewedAt, expiresAt: event.data.expiresAt };
    case 'LeaseRevocationQueued':
      return state && { ...state, expiresAt: Math.min(state.expiresAt, event.data.expiresAt) };
    case 'LeaseRevocationFailed':
      return (
        state && {
          ...state,
          attempts: event.data.attempts,
          nextAttemptAt: event.data.nextAttemptAt,
          irrevocable: event.data.irrevocable,
          lastError: event.data.error,
        }
      );
    case 'LeaseRevoked':
      return null;
  }
}

/** Vault's system defaults when a mount sets none (768h). */
export const SYSTEM_DEFAULT_LEASE_TTL = 768 * 3600;
export const SYSTEM_MAX_LEASE_TTL = 768 * 3600;

type MountTtls = MountInfo['config'];

/** The mount's max lease TTL, or the system's: a lease is never non-expiring. */
export function mountMaxTtl(config: MountTtls): number {
  return config.max_lease_ttl > 0 ? config.max_lease_ttl : SYSTEM_MAX_LEASE_TTL;
}

/**
 * Vault's framework.CalculateTTL: the requested TTL (else the engine's, else the mount default),
 * never past `issuedAt + max`, max being the engine's max when lower than the mount's.
 */
export function calculateTtl(opts: {
  config: MountTtls;
  requested: number;
  engineTtl: number;
  engineMaxTtl: number;
  issuedAt: number;
  now: number;
}): { ttl: number; maxExpiresAt: number } {
  const { config, requested, engineTtl, engineMaxTtl, issuedAt, now } = opts;
  const mountDefault = config.default_lease_ttl > 0 ? config.default_lease_ttl : SYSTEM_DEFAULT_LEASE_TTL;
  let max = mountMaxTtl(config);
  if (engineMaxTtl > 0 && engineMaxTtl < max) max = engineMaxTtl;
  let ttl = requested > 0 ? requested : engineTtl > 0 ? engineTtl : mountDefault;
  const maxExpiresAt = issuedAt + max * 1000;
  if (now + ttl * 1000 > maxExpiresAt) ttl = Math.max(0, Math.floor((maxExpiresAt - now) / 1000));
  return { ttl, maxExpiresAt };
}

/** The LeaseIssued event for an engine's `secret` answer. */
export function decideIssue(opts: {
  leaseId: string;
  path: string;
  mount: MountInfo;
  service: string;
  tokenAccessor: string | null;
  secret: EngineSecret;
  now: number;
}): LeaseIssuedData {
  const { mount, secret, now } = opts;
  const { ttl, maxExpiresAt } = calculateTtl({
    config: mount.config,
    requested: 0,
    engineTtl: secret.ttl,
    engineMaxTtl: secret.max_ttl,
    issuedAt: now,
    now,
  });
  return {
    leaseId: opts.leaseId,
    path: opts.path,
    mountUuid: mount.uuid,
    mountAccessor: mount.accessor,
    mountPath: mount.path,
    mountType: mount.type,
    service: opts.service,
    tokenAccessor: opts.tokenAccessor,
    renewable: secret.renewable,
    ttl,
    issuedAt: now,
    expiresAt: now + ttl * 1000,
    maxExpiresAt,
    internal: secret.internal,
  };
}

/** Vault's leaseEntry.renewable: why a lease cannot be renewed, as a 400. */
export function assertRenewable(state: LeaseState | undefined, now: number): LeaseState {
  if (!state) throw invalidRequest('lease not found');
  if (state.irrevocable) throw invalidRequest('lease is irrevocable');
  if (state.expiresAt <= now) throw invalidRequest('lease expired');
  if (!state.renewable) throw invalidRequest('lease is not renewable');
  return state;
}

/**
 * The new expiry of a renewal (Vault's CalculateTTL from the issue time): the increment, else the
 * engine's TTL, else the lease's first TTL; never past the lease's max (nor the engine's, if lower).
 */
export function decideRenew(
  state: LeaseState,
  increment: number,
  engine: { ttl: number; max_ttl: number },
  now: number,
  /** the mount's max lease TTL now (tuned since issue?); 0 = unknown */
  mountMaxTtlNow = 0,
): { renewedAt: number; expiresAt: number; ttl: number; warnings: string[] } {
  let ttl = increment > 0 ? increment : engine.ttl > 0 ? engine.ttl : state.ttl;
  let maxAt = state.maxExpiresAt;
  if (engine.max_ttl > 0) maxAt = Math.min(maxAt, state.issuedAt + engine.max_ttl * 1000);
  if (mountMaxTtlNow > 0) maxAt = Math.min(maxAt, state.issuedAt + mountMaxTtlNow * 1000);
  // Vault's CalculateTTL: whole seconds on both sides; past the max is an error, beyond it a cap
  // with its warning.
  const maxValidTtl = Math.floor(maxAt / 1000) - Math.floor(now / 1000);
  if (maxValidTtl <= 0) throw invalidRequest('past the max TTL, cannot renew');
  const warnings: string[] = [];
  if (maxValidTtl < ttl) {
    warnings.push(
      `TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(maxValidTtl)}"; TTL value is capped accordingly`,
    );
    ttl = maxValidTtl;
  }
  return { renewedAt: now, expiresAt: now + ttl * 1000, ttl, warnings };
}

export interface RevocationPolicy {
  /** tries before a lease is marked irrevocable */
  maxAttempts: number;
  /** first retry delay; doubled each try up to maxBackoffMs */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_REVOCATION_POLICY: RevocationPolicy = {
  maxAttempts: 6,
  baseBackoffMs: 1000,
  maxBackoffMs: 60_000,
};

export function decideRevocationFailure(
  state: LeaseState,
  error: string,
  now: number,
  policy: RevocationPolicy,
): { failedAt: number; attempts: number; error: string; nextAttemptAt: number; irrevocable: boolean } {
  const attempts = state.attempts + 1;
  const backoff = Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** (attempts - 1));
  return {
    failedAt: now,
    attempts,
    error,
    nextAttemptAt: now + backoff,
    irrevocable: attempts >= policy.maxAttempts,
  };
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** sys/leases/lookup's data. */
export function lookupView(state: LeaseState, now: number) {
  return {
    id: state.leaseId,
    issue_time: rfc3339(state.issuedAt),
    expire_time: rfc3339(state.expiresAt),
    last_renewal: state.lastRenewal === null ? null : rfc3339(state.lastRenewal),
    renewable: state.renewable && !state.irrevocable,
    ttl: Math.max(0, Math.floor((state.expiresAt - now) / 1000)),
  };
}

/** A lease id prefix as Vault reads it: a directory, ending in "/" ("" = everything). */
export function prefixDirectory(prefix: string): string {
  if (prefix === '' || prefix.endsWith('/')) return prefix;
  return `${prefix}/`;
}

/** The next segment of each id under the prefix, "seg/" when there is more below (Vault's List). */
export function childKeys(ids: readonly string[], prefix: string): string[] {
  const keys = new Set<string>();
  for (const id of ids) {
    if (!id.startsWith(prefix)) continue;
    const rest = id.slice(prefix.length);
    const slash = rest.indexOf('/');
    keys.add(slash === -1 ? rest : rest.slice(0, slash + 1));
  }
  return [...keys].sort();
}

export const leaseIdRequired = (): DomainError => invalidRequest('lease_id must be specified');
export const invalidLease = (): DomainError => invalidRequest('invalid lease');

/** Vault's MaxIrrevocableLeasesToReturn and its warning. */
export const MAX_IRREVOCABLE_LEASES = 10_000;
export const MAX_IRREVOCABLE_WARNING =
  'Command halted because many irrevocable leases were found. To emit the entire list, re-run the command with force set true.';

/** Vault's processLimit: "" the default, "none" everything, else a positive integer (strconv.Atoi). */
export function irrevocableLimit(raw: string): number | 'none' {
  if (raw === '') return MAX_IRREVOCABLE_LEASES;
  if (raw.toLowerCase() === 'none') return 'none';
  if (!/^[+-]?\d+$/.test(raw))
    throw invalidRequest(
      `invalid 'limit' provided: strconv.Atoi: parsing ${JSON.stringify(raw)}: invalid syntax`,
    );
  const limit = Number(raw);
  if (limit < 1) throw invalidRequest("limit must be 'none' or a positive integer");
  return limit;
}

/**
 * The request path of a lease id, relative to the namespace of its mount, as Vault's req.Path
 * is: the gateway's path may still carry part of the namespace ("ns2/aws/creds/x" for a request
 * with header "ns1/" reaching a mount of "ns1/ns2/"). Leading namespace segments are dropped
 * until the mount's own path starts the rest.
 */
export function leaseRequestPath(path: string, mount: Pick<MountInfo, 'path' | 'namespace'>): string {
  const trimmed = path.replace(/\/+$/, '');
  const segments = (mount.namespace ?? '').split('/').filter((s) => s !== '');
  for (let i = 0; i <= segments.length; i++) {
    const prefix = segments
      .slice(i)
      .map((s) => `${s}/`)
      .join('');
    if (trimmed.startsWith(prefix) && `${trimmed.slice(prefix.length)}/`.startsWith(mount.path))
      return trimmed.slice(prefix.length);
  }
  return trimmed;
}

/** Vault's lease id: "<path>/<random>", with ".<namespace id>" for a lease of a non-root namespace. */
export function leaseIdFor(path: string, random: string, namespaceId: string | undefined): string {
  return namespaceId ? `${path}/${random}.${namespaceId}` : `${path}/${random}`;
}
