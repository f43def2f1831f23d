import { DomainError, decodeContext, type CallerContext } from '@coffer/contracts';
import type { Headers } from '../transport-types';

/** The caller context carried in the headers; a header that does not decode is the caller's fault. */
export function callerFromHeaders(headers: Headers): CallerContext | undefined {
  try {
    return decodeContext(headers);
  } catch {
    throw new DomainError('invalid_request', 'invalid caller context');
  }
}

export function requireCaller(headers: Headers): CallerContext {
  const caller = callerFromHeaders(headers);
  if (caller === undefined) throw new DomainError('invalid_request', 'missing caller context');
  return caller;
}
