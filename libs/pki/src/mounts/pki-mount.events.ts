import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';

/** Stream `pki-mount/<mount uuid>`: the mount was disabled; its CA, roles and certificates went with it. */
export const pkiMountPurged = defineEvent('PkiMountPurged', 1, z.object({ path: z.string() }));

export const PKI_MOUNT_EVENT_TYPES = { purged: pkiMountPurged } as const;

export const PKI_MOUNT_LOG = defineAggregateLog({
  description: 'a pki mount event',
  events: PKI_MOUNT_EVENT_TYPES,
  stream: (mountUuid: string) => `pki-mount/${mountUuid}`,
});
