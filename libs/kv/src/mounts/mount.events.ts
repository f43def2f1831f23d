import { z } from 'zod';

/** Stream `kv-mount/<mount uuid>`: the mount was disabled and all its data erased at once. */
export const mountDataPurged = {
  name: 'MountDataPurged',
  version: 1,
  schema: z.object({ type: z.string(), path: z.string() }),
} as const;

export const MOUNT_EVENT_TYPES = [mountDataPurged] as const;
