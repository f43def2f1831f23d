import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';
import { kvMountStream } from '../shared/streams';

/** Stream `kv-mount/<mount uuid>`: the mount was disabled and all its data erased at once. */
export const mountDataPurged = defineEvent(
  'MountDataPurged',
  1,
  z.object({ type: z.string(), path: z.string() }),
);

export const MOUNT_PURGE_EVENT_TYPES = { purged: mountDataPurged } as const;

/** A disabled mount's data, keyed by mount uuid. */
export const MOUNT_PURGE_LOG = defineAggregateLog({
  description: 'a kv mount event',
  events: MOUNT_PURGE_EVENT_TYPES,
  stream: kvMountStream,
});
