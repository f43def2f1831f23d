import { invalidRequest, type DomainError } from '@coffer/contracts';
import type { AppendedOf } from '@coffer/event-store';
import type { ResponseWrappedData, WRAPPING_EVENT_TYPES } from './wrapping.events';

/** Vault's consts.ErrInvalidWrappingToken, answered 400 for every unusable wrapping token. */
export const invalidWrappingToken = (): DomainError =>
  invalidRequest('wrapping token is not valid or does not exist');

/** A wrapped response still waiting for its unwrap, with the stream version to append after. */
export interface PendingResponse {
  wrapped: ResponseWrappedData;
  version: number;
}

/** The stream's fold: the response if it is still there, else undefined. */
export function pendingResponse(
  events: readonly AppendedOf<typeof WRAPPING_EVENT_TYPES>[],
): PendingResponse | undefined {
  let wrapped: ResponseWrappedData | undefined;
  for (const e of events) wrapped = e.type === 'ResponseWrapped' ? e.data : undefined;
  const last = events[events.length - 1];
  return wrapped && last ? { wrapped, version: last.streamVersion } : undefined;
}

/** RFC 3339 with nanoseconds, as Vault renders creation_time. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000000Z`;
}
