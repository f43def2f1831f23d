import { parseDurationNanos } from '@coffer/config';
import { DomainError, invalidRequest } from '@coffer/contracts';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Coffer's header names with Vault's spellings accepted too, so stock Vault CLIs, SDKs and agents
 * work unchanged. X-Service-Request / X-Vault-Request (sent by CLIs as a CSRF guard) are accepted
 * and need no handling here.
 */
export const TOKEN_HEADERS = ['x-service-token', 'x-vault-token'] as const;
export const NAMESPACE_HEADERS = ['x-service-namespace', 'x-vault-namespace'] as const;
export const WRAP_TTL_HEADERS = [
  ['x-service-wrap-ttl', 'X-Service-Wrap-TTL'],
  ['x-vault-wrap-ttl', 'X-Vault-Wrap-TTL'],
] as const;

function first(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The client token: X-Service-Token, X-Vault-Token, then `Authorization: Bearer <token>`. */
export function readToken(headers: IncomingHttpHeaders): string | undefined {
  for (const name of TOKEN_HEADERS) {
    const value = first(headers, name)?.trim();
    if (value) return value;
  }
  const authorization = first(headers, 'authorization')?.trim();
  if (authorization && authorization.length > 7 && authorization.slice(0, 7).toLowerCase() === 'bearer ') {
    const token = authorization.slice(7).trim();
    if (token) return token;
  }
  return undefined;
}

export function readNamespaceHeader(headers: IncomingHttpHeaders): string | undefined {
  for (const name of NAMESPACE_HEADERS) {
    const value = first(headers, name);
    if (value !== undefined && value.trim() !== '') return value;
  }
  return undefined;
}

/**
 * The requested response-wrapping TTL in seconds (seconds or a Go duration), like Vault's
 * requestWrapInfo. The TTL feeds the ACL's wrapping constraints (min/max_wrapping_ttl) and the
 * response wrapping after the engine answered (wrapping/response-wrapper.ts).
 */
export function readWrapTtl(headers: IncomingHttpHeaders): number | undefined {
  for (const [name, display] of WRAP_TTL_HEADERS) {
    const value = first(headers, name);
    if (value === undefined || value === '') continue;
    let nanos: bigint;
    try {
      nanos = parseDurationNanos(value);
    } catch (error) {
      const reason = error instanceof DomainError ? error.message : 'invalid duration';
      throw invalidRequest(`error parsing ${display} header: ${reason}`);
    }
    if (nanos < 0n)
      throw invalidRequest(`error parsing ${display} header: requested wrap ttl cannot be negative`);
    return Number(nanos / 1_000_000n) / 1000;
  }
  return undefined;
}
