import { z } from 'zod';
import { defineEvent } from '@coffer/event-store';

/**
 * Events of unversioned secrets: kv v1 (`kv/<mount uuid>/<path>`) and cubbyhole
 * (`cubbyhole/<token ref>/<mount uuid>/<path>`), plus the cubbyhole-wide stream of a token
 * (`cubbyhole/<token ref>`). A write replaces the secret: the previous write's data key is
 * erased, so the log never holds a readable old value.
 */
export const secretWritten = defineEvent(
  'SecretWritten',
  1,
  z.object({
    keyId: z.string(),
    /** base64 of AES-256-GCM(data key, JSON of the secret data) */
    ciphertext: z.string(),
  }),
);

export const secretDeleted = defineEvent('SecretDeleted', 1, z.object({}));

/**
 * Every secret of a token's cubbyhole destroyed at once: on the token-revoked broadcast, or when
 * a sweep finds the token gone (expired, or a broadcast was missed).
 */
export const cubbyholeDestroyed = defineEvent(
  'CubbyholeDestroyed',
  1,
  z.object({ reason: z.enum(['token_revoked', 'token_gone']) }),
);

export type SecretWritten = z.infer<typeof secretWritten.schema>;
export type FlatEvent =
  { type: 'SecretWritten'; data: SecretWritten } | { type: 'SecretDeleted'; data: Record<string, never> };

export const FLAT_EVENT_TYPES = [secretWritten, secretDeleted, cubbyholeDestroyed] as const;
