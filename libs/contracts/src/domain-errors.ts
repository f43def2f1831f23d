/**
 * Domain errors know nothing of HTTP: services throw them with a code, the transport carries
 * {code, message, data} across the wire, and one table in the gateway maps codes to status.
 */
export const ERROR_CODES = [
  'invalid_request', // 400: bad input; message is shown to the caller
  'permission_denied', // 403
  'invalid_token', // 403, body says "permission denied" + "invalid token" like Vault
  'forbidden', // 403 with the message as the error: Vault's ErrorResponse paired with ErrPermissionDenied ("bad token")
  'not_found', // 404 with errors:[] (missing key, empty LIST); `data` may carry a body (kv v2 deleted version)
  'unsupported_path', // 404 "unsupported path"
  'no_handler', // 404 no mount for the path
  'unsupported_operation', // 405
  'payload_too_large', // 413
  'precondition_failed', // 412
  'rate_limited', // 429
  'upstream_error', // 502
  'not_initialized', // 501 on health, 400 elsewhere: "Vault is not initialized"
  'sealed', // 503 "Vault is sealed"
  'service_unavailable', // 503: no running replica of the engine service, or a time-out
  'internal', // 500: a bug; message never carries secrets
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The codes the gateway's error table answers with a 5xx: the service's fault, not the caller's.
 * Traces mark these as errors; the others (4xx) are answers, as the HTTP conventions have it.
 */
export const SERVER_FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'upstream_error',
  'sealed',
  'service_unavailable',
  'internal',
]);

export interface DomainErrorBody {
  code: ErrorCode;
  message: string;
  /** Optional response body for errors that still return data (e.g. kv v2 404 with metadata). */
  data?: Record<string, unknown> | null;
  warnings?: string[];
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown> | null,
    readonly warnings?: string[],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): DomainErrorBody {
    const body: DomainErrorBody = { code: this.code, message: this.message };
    if (this.data !== undefined) body.data = this.data;
    if (this.warnings !== undefined) body.warnings = this.warnings;
    return body;
  }

  static fromBody(body: DomainErrorBody): DomainError {
    return new DomainError(body.code, body.message, body.data, body.warnings);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export const invalidRequest = (message: string): DomainError => new DomainError('invalid_request', message);
export const notFound = (data?: Record<string, unknown> | null, warnings?: string[]): DomainError =>
  new DomainError('not_found', '', data, warnings);
export const permissionDenied = (): DomainError => new DomainError('permission_denied', 'permission denied');

/** The data field of a rate_limited or service_unavailable error with the seconds to wait; the gateway answers it as Retry-After. */
export const RETRY_AFTER_DATA = 'retry_after_seconds';
/** 429 telling the caller when to come back (whole seconds, rounded up by the gateway). */
export const rateLimited = (message: string, retryAfterSeconds: number): DomainError =>
  new DomainError('rate_limited', message, { [RETRY_AFTER_DATA]: retryAfterSeconds });
