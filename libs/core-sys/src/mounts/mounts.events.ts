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

/** sys/remount started: the mount is tainted (no request reaches it) while its leases are revoked. */
const mountPathDetails = z.object({
  /** "" = root, else "ns1/ns2/" */
  namespace: z.string(),
  /** relative to the namespace: "secret/", "auth/userpass/" */
  mountPath: z.string(),
});
export const mountMigrationStartedV1 = z.object({
  migrationId: z.string(),
  uuid: z.string(),
  source: mountPathDetails,
  target: mountPathDetails,
});
/**
 * A mount moved to a new path and/or namespace (secrets engine or auth method alike): its data
 * stays, being keyed by uuid; it serves again. Ends its migration with success.
 */
export const mountMovedV1 = z.object({
  migrationId: z.string(),
  uuid: z.string(),
  path: z.string(),
  /** the namespace it moved to ("" = root) */
  namespace: z.string(),
});
/** A move that could not finish: the mount serves again at its old path. */
export const mountMigrationFailedV1 = z.object({
  migrationId: z.string(),
  uuid: z.string(),
  reason: z.string(),
});

export const MOUNT_EVENT_TYPES = {
  mountEnabled: { name: 'MountEnabled', version: 1, schema: mountEnabledV1 },
  authMethodEnabled: { name: 'AuthMethodEnabled', version: 1, schema: mountEnabledV1 },
  mountTuned: { name: 'MountTuned', version: 1, schema: mountTunedV1 },
  authMethodTuned: { name: 'AuthMethodTuned', version: 1, schema: mountTunedV1 },
  mountDisabled: { name: 'MountDisabled', version: 1, schema: mountDisabledV1 },
  authMethodDisabled: { name: 'AuthMethodDisabled', version: 1, schema: mountDisabledV1 },
  mountTainted: { name: 'MountTainted', version: 1, schema: mountTaintedV1 },
  mountMigrationStarted: { name: 'MountMigrationStarted', version: 1, schema: mountMigrationStartedV1 },
  mountMoved: { name: 'MountMoved', version: 1, schema: mountMovedV1 },
  mountMigrationFailed: { name: 'MountMigrationFailed', version: 1, schema: mountMigrationFailedV1 },
} as const;

export type MountEvent = EventOf<typeof MOUNT_EVENT_TYPES>;

/** The one mount-table stream (key: none). */
export const MOUNTS_LOG = defineAggregateLog({
  description: 'a mount event',
  events: MOUNT_EVENT_TYPES,
  stream: () => MOUNTS_STREAM,
});
