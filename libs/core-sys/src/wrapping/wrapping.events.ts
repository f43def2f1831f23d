import { z } from 'zod';
import { jsonObjectSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * A wrapped response, one stream per wrapping token: `wrapped-response/<token accessor>`. The
 * response lives only in this (barrier-encrypted) log, never in a read-model table; the stream's
 * version is what makes an unwrap single-use (the second append at the same version loses).
 */

export const responseWrappedV1 = z.object({
  /** the HTTP body the client would have received */
  response: jsonObjectSchema,
  /** seconds */
  creationTtl: z.number().int().positive(),
  /** unix ms */
  createdAt: z.number().int(),
  creationPath: z.string(),
  wrappedAccessor: z.string().optional(),
});
export type ResponseWrappedData = z.infer<typeof responseWrappedV1>;

/** The response was handed out (unwrap) or moved to another token (rewrap): it is gone for good. */
export const wrappedResponseReleasedV1 = z.object({
  reason: z.enum(['unwrapped', 'rewrapped']),
  releasedAt: z.number().int(),
});
export type WrappedResponseReleasedData = z.infer<typeof wrappedResponseReleasedV1>;

export const WRAPPING_EVENT_TYPES = {
  wrapped: { name: 'ResponseWrapped', version: 1, schema: responseWrappedV1 },
  released: { name: 'WrappedResponseReleased', version: 1, schema: wrappedResponseReleasedV1 },
} as const;

export type WrappingEvent = EventOf<typeof WRAPPING_EVENT_TYPES>;

/** Wrapped-response streams, keyed by the wrapping token's accessor. */
export const WRAPPING_LOG = defineAggregateLog({
  description: 'a response wrapping event',
  events: WRAPPING_EVENT_TYPES,
  stream: (accessor: string) => `wrapped-response/${accessor}`,
});
