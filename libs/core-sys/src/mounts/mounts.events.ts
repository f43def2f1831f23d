import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';
import { mountConfigSchema, mountRecordSchema } from './mount.model';

/**
 * Mount-table events, all on one stream (`mounts/table`) so every change is decided against the
 * whole table (no two overlapping paths, one revision for the routing caches). Secrets engines
 * and built-ins use the Mount* events, auth methods the AuthMethod* ones.
 */
export const MOUNTS_STREAM = 'mounts/table';

export const mountEnabledV1 = mountRecordSchema;
export const mountTunedV1 = z.object({
  uuid: z.string(),
  description: z.string(),
  config: mountConfigSchema,
  options: stringMapSchema,
});
export const mountDisabledV1 = z.object({ uuid: z.string(), path: z.string(), type: z.string() });
/** An unmount started: the mount refuses requests until its leases are revoked and it is gone. */
export const mountTaintedV1 = z.object({ uuid: z.string(), path: z.string() });

export const MOUNT_EVENT_TYPES = {
  mountEnabled: { name: 'MountEnabled', version: 1, schema: mountEnabledV1 },
  authMethodEnabled: { name: 'AuthMethodEnabled', version: 1, schema: mountEnabledV1 },
  mountTuned: { name: 'MountTuned', version: 1, schema: mountTunedV1 },
  authMethodTuned: { name: 'AuthMethodTuned', version: 1, schema: mountTunedV1 },
  mountDisabled: { name: 'MountDisabled', version: 1, schema: mountDisabledV1 },
  authMethodDisabled: { name: 'AuthMethodDisabled', version: 1, schema: mountDisabledV1 },
  mountTainted: { name: 'MountTainted', version: 1, schema: mountTaintedV1 },
} as const;

export type MountEvent = EventOf<typeof MOUNT_EVENT_TYPES>;

/** The one mount-table stream (key: none). */
export const MOUNTS_LOG = defineAggregateLog({
  description: 'a mount event',
  events: MOUNT_EVENT_TYPES,
  stream: () => MOUNTS_STREAM,
});
