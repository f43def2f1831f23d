import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * userpass events, one stream per user of a mount: `userpass-user/<mount uuid>/<username>`.
 * Passwords appear only as scrypt hashes (and the log itself is encrypted by the barrier).
 */

export const userTokenSettingsV1 = z.object({
  tokenPolicies: z.array(z.string()),
  /** seconds */
  tokenTtl: z.number().int().nonnegative(),
  tokenMaxTtl: z.number().int().nonnegative(),
  tokenExplicitMaxTtl: z.number().int().nonnegative(),
  tokenPeriod: z.number().int().nonnegative(),
  tokenNumUses: z.number().int().nonnegative(),
  tokenNoDefaultPolicy: z.boolean(),
  tokenType: z.string(),
  tokenBoundCidrs: z.array(z.string()),
});
export type UserTokenSettings = z.infer<typeof userTokenSettingsV1>;

export const userWrittenV1 = z.object({
  mountUuid: z.string(),
  username: z.string(),
  passwordHash: z.string(),
  settings: userTokenSettingsV1,
  writtenAt: z.number().int(),
});
export type UserWrittenData = z.infer<typeof userWrittenV1>;

export const userPasswordSetV1 = z.object({ passwordHash: z.string(), setAt: z.number().int() });
export type UserPasswordSetData = z.infer<typeof userPasswordSetV1>;

export const userPoliciesSetV1 = z.object({ tokenPolicies: z.array(z.string()), setAt: z.number().int() });
export type UserPoliciesSetData = z.infer<typeof userPoliciesSetV1>;

export const userDeletedV1 = z.object({ deletedAt: z.number().int() });
export type UserDeletedData = z.infer<typeof userDeletedV1>;

export const USERPASS_EVENT_TYPES = {
  written: { name: 'UserpassUserWritten', version: 1, schema: userWrittenV1 },
  passwordSet: { name: 'UserpassPasswordSet', version: 1, schema: userPasswordSetV1 },
  policiesSet: { name: 'UserpassPoliciesSet', version: 1, schema: userPoliciesSetV1 },
  deleted: { name: 'UserpassUserDeleted', version: 1, schema: userDeletedV1 },
} as const;

export type UserpassEvent = EventOf<typeof USERPASS_EVENT_TYPES>;

export const userStream = (mountUuid: string, username: string): string =>
  `userpass-user/${mountUuid}/${username}`;

/** A userpass user: a mount and a username. */
export interface UserKey {
  mountUuid: string;
  username: string;
}

/** User streams, one per mount and username. */
export const USERPASS_LOG = defineAggregateLog({
  description: 'a userpass event',
  events: USERPASS_EVENT_TYPES,
  stream: (user: UserKey) => userStream(user.mountUuid, user.username),
});
