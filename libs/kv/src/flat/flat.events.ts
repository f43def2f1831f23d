import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';
import type { SealedData } from '../shared/data-keys';
import { cubbyholeSecretStream, cubbyholeStream, kvKeyStream } from '../shared/streams';
import type { FlatScope } from './flat.repository';

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

export const FLAT_EVENT_TYPES = { written: secretWritten, deleted: secretDeleted } as const;
export const CUBBYHOLE_EVENT_TYPES = { destroyed: cubbyholeDestroyed } as const;

export type SecretWritten = z.infer<typeof secretWritten.schema>;
export type FlatEvent = EventOf<typeof FLAT_EVENT_TYPES>;

/** kv v1 answers reads with lease advice; cubbyhole with none (lease_duration 0). */
export type FlatKind = 'kv' | 'cubbyhole';

/** One unversioned secret's append: where it lives, and what the projection needs beyond the events. */
export interface FlatAppend {
  kind: FlatKind;
  scope: FlatScope;
  path: string;
  /** the secret's data key before this append (null: the secret has no row yet) */
  previousKeyId: string | null;
  /** the written value under its new data key (a SecretWritten's key material, never logged) */
  sealed?: SealedData;
}

export const flatStream = (kind: FlatKind, scope: FlatScope, path: string): string =>
  kind === 'kv'
    ? kvKeyStream(scope.mountUuid, path)
    : cubbyholeSecretStream(scope.owner, scope.mountUuid, path);

/** kv v1 and cubbyhole secrets, one stream per secret. */
export const FLAT_LOG = defineAggregateLog({
  description: 'an unversioned secret event',
  events: FLAT_EVENT_TYPES,
  stream: (a: FlatAppend) => flatStream(a.kind, a.scope, a.path),
});

/** A token's whole cubbyhole, keyed by token ref. */
export const CUBBYHOLE_LOG = defineAggregateLog({
  description: 'a cubbyhole event',
  events: CUBBYHOLE_EVENT_TYPES,
  stream: cubbyholeStream,
});
