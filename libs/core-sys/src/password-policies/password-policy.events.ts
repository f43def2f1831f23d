import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/** Password policy events, one stream per policy name: `policy/password/<name>` (last writer wins, as Vault). */
export const passwordPolicyWritten = defineEvent(
  'PasswordPolicyWritten',
  1,
  z.object({ name: z.string(), policy: z.string() }),
);
export const passwordPolicyDeleted = defineEvent('PasswordPolicyDeleted', 1, z.object({ name: z.string() }));

export const PASSWORD_POLICY_EVENT_TYPES = {
  written: passwordPolicyWritten,
  deleted: passwordPolicyDeleted,
} as const;
export type PasswordPolicyEvent = EventOf<typeof PASSWORD_POLICY_EVENT_TYPES>;

export const PASSWORD_POLICY_LOG = defineAggregateLog({
  description: 'a password policy event',
  events: PASSWORD_POLICY_EVENT_TYPES,
  stream: (name: string) => `policy/password/${name}`,
});
