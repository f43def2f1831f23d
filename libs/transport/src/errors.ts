import { DomainError, ERROR_CODES, type DomainErrorBody, type ErrorCode } from '@coffer/contracts';
import type { z } from 'zod';
import type { TransportLogger } from './types';

export const INTERNAL_MESSAGE = 'internal error';
export const DEFAULT_TIMEOUT_MS = 30_000;

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

export function noReplicaError(service: string): DomainError {
  return new DomainError('service_unavailable', `no running replica of the "${service}" service`);
}

export function timeoutError(service: string, timeoutMs: number): DomainError {
  return new DomainError(
    'service_unavailable',
    `the "${service}" service did not answer within ${timeoutMs} ms`,
  );
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
 * Maps whatever a handler threw to what crosses the wire. Only DomainError is meant for callers;
 * anything else is a bug: logged here (message and stack, which never include payloads) and
 * replaced by an opaque internal error.
 */
export function toDomainError(error: unknown, subject: string, logger: TransportLogger): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof Error) logger.error(`handler for "${subject}" failed: ${error.message}`, error.stack);
  else logger.error(`handler for "${subject}" failed with a non-Error value (${typeof error})`);
  return new DomainError('internal', INTERNAL_MESSAGE);
}

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * Rebuilds the DomainError a server sent. A malformed body (another version, a foreign
 * responder) becomes an internal error instead of a crash on the calling side.
 */
export function fromWireError(value: unknown): DomainError {
  if (typeof value !== 'object' || value === null) return new DomainError('internal', INTERNAL_MESSAGE);
  const body = value as Partial<Record<keyof DomainErrorBody, unknown>>;
  if (typeof body.code !== 'string' || !KNOWN_CODES.has(body.code) || typeof body.message !== 'string') {
    return new DomainError('internal', INTERNAL_MESSAGE);
  }
  const data =
    body.data === null || (typeof body.data === 'object' && !Array.isArray(body.data))
      ? (body.data as Record<string, unknown> | null)
      : undefined;
  const warnings = isStringArray(body.warnings) ? body.warnings : undefined;
  return new DomainError(body.code as ErrorCode, body.message, data, warnings);
}
