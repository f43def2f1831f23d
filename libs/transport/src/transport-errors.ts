import {
  DomainError,
  ERROR_CODES,
  decodeContext,
  type DomainErrorBody,
  type ErrorCode,
} from '@coffer/contracts';
import type { z } from 'zod';
import { activeTraceId } from './tracing';
import type { Headers, TransportLogger } from './transport-types';

export const INTERNAL_MESSAGE = 'internal error';
/** Requests without their own time-out (the gateway sets its engine_timeout, 10 s by default). */
export const DEFAULT_TIMEOUT_MS = 30_000;

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Codes that are the server's fault (5xx) and must reach the logs once. `sealed` is a state the
 * operator chose, answered 503 like Vault, and not logged per request.
 */
const SERVER_FAULTS: ReadonlySet<ErrorCode> = new Set(['internal', 'upstream_error', 'service_unavailable']);

export const isServerFault = (error: DomainError): boolean => SERVER_FAULTS.has(error.code);

/**
 * DomainErrors already written to a log (by the engine that failed): they travel marked
 * (`logged` in the wire body), so no later hop logs them again.
 */
const loggedErrors = new WeakSet<DomainError>();

export const wasLogged = (error: unknown): boolean => error instanceof DomainError && loggedErrors.has(error);

function markLogged(error: DomainError): DomainError {
  loggedErrors.add(error);
  return error;
}

/** What crosses the wire for a DomainError: its body, and whether it was logged. */
export function wireErrorBody(error: DomainError): DomainErrorBody & { logged?: true } {
  const body: DomainErrorBody & { logged?: true } = error.toBody();
  if (loggedErrors.has(error)) body.logged = true;
  return body;
}

/** An opaque internal error that keeps what really failed as its `cause`, for the one log line. */
export function internalError(cause: unknown): DomainError {
  const error = new DomainError('internal', INTERNAL_MESSAGE);
  error.cause = cause;
  return error;
}

export function noReplicaError(service: string): DomainError {
  return new DomainError('service_unavailable', `no running replica of the "${service}" service`);
}

/**
 * A request nobody answered in time. A write may still have been applied by a replica that died
 * or stalled after committing, so the caller is told not to assume otherwise.
 */
export function timeoutError(service: string, timeoutMs: number, write = false): DomainError {
  const text = `the "${service}" service did not answer within ${timeoutMs} ms`;
  return new DomainError('service_unavailable', write ? `${text}; the request may have been applied` : text);
}

export function closedError(): DomainError {
  return new DomainError('service_unavailable', 'the transport is closed');
}

/** One line per issue, "path: message", readable by an API caller (zod messages carry no input values). */
export function formatIssues(error: z.ZodError): string {
  const parts: string[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    parts.push(path === '' ? issue.message : `${path}: ${issue.message}`);
  }
  return parts.join('; ');
}

/**
 * "Name: message" of what really failed, following `cause`. A SyntaxError's message may quote the
 * input it choked on (JSON.parse does), so only its name is kept.
 */
export function describeCause(error: unknown): { text: string; stack: string | undefined } {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
  }
  if (!(current instanceof Error)) return { text: `a non-Error value (${typeof current})`, stack: undefined };
  if (current instanceof SyntaxError) {
    return { text: `${current.name} (message withheld: it may quote input)`, stack: undefined };
  }
  return { text: `${current.name}: ${current.message}`, stack: current.stack };
}

/** The request id of the caller context in `headers`, when there is one that decodes. */
export function requestIdOf(headers: Headers | undefined): string {
  if (headers === undefined) return '-';
  try {
    return decodeContext(headers)?.requestId ?? '-';
  } catch {
    return '-';
  }
}

/**
 * Maps whatever a handler threw to what crosses the wire. A DomainError meant for the caller (4xx,
 * sealed) passes silently; a server fault is logged here, once, with the request id, the subject,
 * the code and the cause (never payloads), and marked so that no later hop logs it again. Anything
 * that is not a DomainError is a bug: logged, and replaced by an opaque internal error.
 */
export function toDomainError(
  error: unknown,
  subject: string,
  logger: TransportLogger,
  requestId = '-',
): DomainError {
  const domainError = error instanceof DomainError ? error : internalError(error);
  if (wasLogged(domainError) || !isServerFault(domainError)) return domainError;
  const cause = describeCause(domainError);
  const traceId = activeTraceId();
  logger.error(
    `request ${requestId} to "${subject}" failed: ${domainError.code}: ${cause.text}` +
      (traceId === undefined ? '' : ` (trace ${traceId})`),
    cause.stack,
  );
  return markLogged(domainError);
}

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * Rebuilds the DomainError a server sent. A malformed body (another version, a foreign
 * responder) becomes an internal error instead of a crash on the calling side.
 */
export function fromWireError(value: unknown): DomainError {
  if (typeof value !== 'object' || value === null) return internalError(new Error('malformed error reply'));
  const body = value as Partial<Record<keyof DomainErrorBody | 'logged', unknown>>;
  if (typeof body.code !== 'string' || !KNOWN_CODES.has(body.code) || typeof body.message !== 'string') {
    return internalError(new Error('malformed error reply'));
  }
  const data =
    body.data === null || (typeof body.data === 'object' && !Array.isArray(body.data))
      ? (body.data as Record<string, unknown> | null)
      : undefined;
  const warnings = isStringArray(body.warnings) ? body.warnings : undefined;
  const error = new DomainError(body.code as ErrorCode, body.message, data, warnings);
  return body.logged === true ? markLogged(error) : error;
}
