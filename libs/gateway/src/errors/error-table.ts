import { DomainError, multiError, RETRY_AFTER_DATA, type ErrorCode } from '@coffer/contracts';
import { buildEnvelope } from '../response/envelope';
import { GatewayError, type GatewayErrorKind } from './gateway-error';

/**
 * The one place that maps failures to HTTP: DomainError codes (thrown by services, carried by the
 * transport) and the gateway's own failures, to a status and Vault's exact texts. Clients depend
 * on these strings (Vault Agent re-authenticates when a 403 body contains "invalid token"), so
 * they are copied from Vault, multierror rendering included.
 */

// go-multierror's rendering, as Vault's core wraps ACL and routing errors.
export { multiError };

interface Entry {
  status: number;
  errors: (message: string) => string[];
}

const PERMISSION_DENIED = multiError('permission denied');
const INVALID_TOKEN = multiError('permission denied', 'invalid token');
const UNSUPPORTED_PATH = multiError('unsupported path');
const UNSUPPORTED_OPERATION = multiError('unsupported operation');

const messageOrNone = (message: string): string[] => (message === '' ? [] : [message]);
const fixed = (text: string) => (): string[] => [text];

export const ERROR_TABLE: Readonly<Record<ErrorCode, Entry>> = {
  invalid_request: { status: 400, errors: messageOrNone },
  permission_denied: { status: 403, errors: fixed(PERMISSION_DENIED) },
  invalid_token: { status: 403, errors: fixed(INVALID_TOKEN) },
  forbidden: { status: 403, errors: messageOrNone },
  not_found: { status: 404, errors: () => [] },
  unsupported_path: { status: 404, errors: fixed(UNSUPPORTED_PATH) },
  // the message is the full text: no handler for route "<path>". route entry not found.
  no_handler: { status: 404, errors: messageOrNone },
  unsupported_operation: { status: 405, errors: fixed(UNSUPPORTED_OPERATION) },
  payload_too_large: { status: 413, errors: fixed('http: request body too large') },
  precondition_failed: { status: 412, errors: messageOrNone },
  rate_limited: { status: 429, errors: (m) => [m === '' ? 'rate limit quota exceeded' : m] },
  upstream_error: { status: 502, errors: messageOrNone },
  not_initialized: { status: 400, errors: (m) => [m === '' ? 'Vault is not initialized' : m] },
  sealed: { status: 503, errors: fixed('Vault is sealed') },
  service_unavailable: { status: 503, errors: messageOrNone },
  internal: { status: 500, errors: fixed('internal error') },
};

export const GATEWAY_ERROR_TABLE: Readonly<Record<GatewayErrorKind, Entry>> = {
  // Vault answers a missing token with a bare "permission denied" (no multierror)
  missing_token: { status: 403, errors: fixed('permission denied') },
  unsupported_media_type: { status: 415, errors: messageOrNone },
  method_not_allowed: { status: 405, errors: () => [] },
};

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  /** not a known failure: a bug, to be logged by the caller */
  unexpected: boolean;
  /** response headers the failure asks for (Retry-After of a 429 or 503) */
  headers?: Record<string, string>;
}

/** A rate_limited or service_unavailable error's wait (RETRY_AFTER_DATA) as Retry-After, which Vault's API clients honour. */
function retryAfter(error: DomainError): { headers?: Record<string, string> } {
  if (error.code !== 'rate_limited' && error.code !== 'service_unavailable') return {};
  const seconds = error.data?.[RETRY_AFTER_DATA];
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return {};
  return { headers: { 'retry-after': String(Math.ceil(seconds)) } };
}

export function noHandlerError(path: string): DomainError {
  return new DomainError('no_handler', `no handler for route "${path}". route entry not found.`);
}

export function renderError(error: unknown, requestId: string): RenderedError {
  if (error instanceof DomainError) {
    const entry = ERROR_TABLE[error.code];
    const errors = entry.errors(error.message);
    // kv v2 answers a deleted or destroyed version with 404 and the whole envelope
    if (error.code === 'not_found' && (error.data !== undefined || (error.warnings?.length ?? 0) > 0)) {
      const envelope = buildEnvelope(requestId, { data: error.data ?? null, warnings: error.warnings ?? [] });
      return { status: entry.status, body: { ...envelope, errors }, unexpected: false };
    }
    return { status: entry.status, body: { errors }, unexpected: false, ...retryAfter(error) };
  }
  if (error instanceof GatewayError) {
    const entry = GATEWAY_ERROR_TABLE[error.kind];
    return { status: entry.status, body: { errors: entry.errors(error.message) }, unexpected: false };
  }
  return { status: 500, body: { errors: ['internal error'] }, unexpected: true };
}
