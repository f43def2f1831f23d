import { DomainError } from '@coffer/contracts';
import type { ReplicationModes } from '@coffer/contracts/replication';
import type { HttpResult } from '../response/envelope';

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

/**
 * The services whose logs a secondary replays into its own (libs/replication REPLAYED_SOURCES):
 * on a performance secondary their log belongs to the primary's stream, so a local write would
 * make it diverge.
 */
export const REPLAYED_SERVICES: ReadonlySet<string> = new Set(['kv']);

export const PERFORMANCE_SECONDARY_WRITE_REFUSAL =
  'this cluster is a performance secondary: write to the primary, the secondary serves the replicated data once streamed';

/**
 * Refuses a request this cluster does not serve in its replication mode: on a DR secondary
 * every client request but replication, health and seal (400 with Vault's text); on a
 * performance secondary writes to replicated services (Vault forwards them to the primary;
 * Coffer does not forward yet, and refuses rather than fork the replicated log).
 */
export function assertServedInMode(
  modes: ReplicationModes,
  fullPath: string,
  write: boolean,
  service: string | undefined,
): void {
  if (modes.dr === 'secondary' && !drSecondaryAllows(fullPath))
    throw new DomainError('invalid_request', DR_SECONDARY_REFUSAL);
  if (modes.performance === 'secondary' && write && service !== undefined && REPLAYED_SERVICES.has(service))
    throw new DomainError('invalid_request', PERFORMANCE_SECONDARY_WRITE_REFUSAL);
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
