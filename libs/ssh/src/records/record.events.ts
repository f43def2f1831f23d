import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * The engine's named settings of a mount: roles, registered keys, the CA key pair, the
 * zero-address roles and the OTP salt. Each is one document replaced whole by a write, so they
 * share one aggregate: stream `ssh-<kind>/<mount uuid>/<name>`, value parsed by its owner's schema.
 */
export const RECORD_KINDS = ['role', 'key', 'ca', 'zeroaddress', 'salt'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const recordWritten = defineEvent(
  'SshRecordWritten',
  1,
  z.object({ kind: z.enum(RECORD_KINDS), value: z.unknown() }),
);
export const recordDeleted = defineEvent('SshRecordDeleted', 1, z.object({ kind: z.enum(RECORD_KINDS) }));

export const RECORD_EVENT_TYPES = { written: recordWritten, deleted: recordDeleted } as const;
export type RecordEvent = EventOf<typeof RECORD_EVENT_TYPES>;

export interface RecordKey {
  mountUuid: string;
  kind: RecordKind;
  name: string;
  /** whether the read model has a row yet (the first write inserts it) */
  exists: boolean;
}

export const recordStream = (k: Pick<RecordKey, 'mountUuid' | 'kind' | 'name'>): string =>
  `ssh-${k.kind}/${k.mountUuid}/${k.name}`;

export const RECORD_LOG = defineAggregateLog({
  description: 'an ssh settings event',
  events: RECORD_EVENT_TYPES,
  stream: (k: RecordKey) => recordStream(k),
});
