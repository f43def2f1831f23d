import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * One-time passwords, one stream per OTP (`ssh-otp/<mount uuid>/<salted hash>`): issued, then
 * consumed by verify or revoked with its lease, whichever comes first. The OTP itself is never
 * logged, only its salted hash.
 */
export const otpIssued = defineEvent(
  'SshOtpIssued',
  1,
  z.object({ username: z.string(), ip: z.string(), roleName: z.string() }),
);
export const otpConsumed = defineEvent('SshOtpConsumed', 1, z.object({}));
export const otpRevoked = defineEvent('SshOtpRevoked', 1, z.object({}));

export const OTP_EVENT_TYPES = { issued: otpIssued, consumed: otpConsumed, revoked: otpRevoked } as const;
export type OtpEvent = EventOf<typeof OTP_EVENT_TYPES>;

export interface OtpKey {
  mountUuid: string;
  hash: string;
}

export const OTP_LOG = defineAggregateLog({
  description: 'an ssh one-time password event',
  events: OTP_EVENT_TYPES,
  stream: (k: OtpKey) => `ssh-otp/${k.mountUuid}/${k.hash}`,
});
