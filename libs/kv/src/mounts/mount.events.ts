import { z } from 'zod';
import { defineEvent } from '@coffer/event-store';

/** Stream `kv-mount/<mount uuid>`: the mount was disabled and all its data erased at once. */
export const mountDataPurged = defineEvent(
  'MountDataPurged',
  1,
  z.object({ type: z.string(), path: z.string() }),
);

export const MOUNT_EVENT_TYPES = [mountDataPurged] as const;
