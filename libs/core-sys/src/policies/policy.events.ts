import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/** ACL policy events, one stream per policy name: `policy/acl/<name>`. */
export const policyStream = (name: string): string => `policy/acl/${name}`;

export const policyWrittenV1 = z.object({ name: z.string(), policy: z.string() });
export const policyDeletedV1 = z.object({ name: z.string() });

export const POLICY_EVENT_TYPES = {
  written: { name: 'PolicyWritten', version: 1, schema: policyWrittenV1 },
  deleted: { name: 'PolicyDeleted', version: 1, schema: policyDeletedV1 },
} as const;

export type PolicyEvent = EventOf<typeof POLICY_EVENT_TYPES>;

/** Policy streams, keyed by (normalised) policy name. */
export const POLICY_LOG = defineAggregateLog({
  description: 'a policy event',
  events: POLICY_EVENT_TYPES,
  stream: policyStream,
});
