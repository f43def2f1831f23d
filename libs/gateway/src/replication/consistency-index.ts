import { DomainError } from '@coffer/contracts';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Read-after-write across clusters, as Vault Enterprise's `X-Vault-Index`: a write to replicated
 * data answers the position of the service's log that holds it; a read on a secondary that
 * carries it is served only once that position is applied there, else 412 (the client retries
 * with back-off, as Vault's clients do). Coffer's name is X-Service-Index; Vault's is accepted and
 * answered too, so stock clients work. The value is opaque to clients (base64url JSON).
 */
export const INDEX_HEADERS = ['x-service-index', 'x-vault-index'] as const;
const RESPONSE_NAMES = ['X-Service-Index', 'X-Vault-Index'];

/** Vault's message for a read whose index state is not applied yet. */
export const MISSING_INDEX_STATE = 'required index state not present';

export interface IndexState {
  /** the service's log ("kv") */
  source: string;
  wal: number;
}

export function encodeIndexState(state: IndexState): string {
  return Buffer.from(JSON.stringify({ s: state.source, w: state.wal }), 'utf8').toString('base64url');
}

/** The index state a request carries, if any; 400 when it is not one this cluster issued. */
export function indexStateOf(headers: IncomingHttpHeaders): IndexState | undefined {
  for (const name of INDEX_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined || value === '') continue;
    try {
      const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as {
        s?: unknown;
        w?: unknown;
      };
      if (typeof parsed.s === 'string' && Number.isSafeInteger(parsed.w) && (parsed.w as number) >= 0)
        return { source: parsed.s, wal: parsed.w as number };
    } catch {
      // falls through to the refusal
    }
    throw new DomainError('invalid_request', `invalid ${name} header`);
  }
  return undefined;
}

export const indexHeaders = (state: IndexState): Record<string, string> => {
  const value = encodeIndexState(state);
  return Object.fromEntries(RESPONSE_NAMES.map((n) => [n, value]));
};
