import { z } from 'zod';
import { SENTINEL_ENFORCEMENT_LEVELS } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/** One stream per policy: `policy/rgp/<name>` or `policy/egp/<name>` (ACL policies are `policy/acl/…`). */
export interface SentinelPolicyKey {
  kind: 'rgp' | 'egp';
  name: string;
}
export const sentinelPolicyStream = (key: SentinelPolicyKey): string => `policy/${key.kind}/${key.name}`;

const kind = z.enum(['rgp', 'egp']);
export const sentinelPolicyWrittenV1 = z.object({
  kind,
  name: z.string(),
  policy: z.string(),
  enforcement_level: z.enum(SENTINEL_ENFORCEMENT_LEVELS),
  paths: z.array(z.string()),
});
export const sentinelPolicyDeletedV1 = z.object({ kind, name: z.string() });

export const SENTINEL_POLICY_EVENT_TYPES = {
  written: { name: 'SentinelPolicyWritten', version: 1, schema: sentinelPolicyWrittenV1 },
  deleted: { name: 'SentinelPolicyDeleted', version: 1, schema: sentinelPolicyDeletedV1 },
} as const;

export type SentinelPolicyEvent = EventOf<typeof SENTINEL_POLICY_EVENT_TYPES>;

export const SENTINEL_POLICY_LOG = defineAggregateLog({
  description: 'a governing-policy event',
  events: SENTINEL_POLICY_EVENT_TYPES,
  stream: sentinelPolicyStream,
});
