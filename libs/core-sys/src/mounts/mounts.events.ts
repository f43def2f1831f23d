import { z } from 'zod';
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
  options: z.record(z.string(), z.string()),
});
export const mountDisabledV1 = z.object({ uuid: z.string(), path: z.string(), type: z.string() });

export type MountEvent =
  | { type: 'MountEnabled' | 'AuthMethodEnabled'; data: z.infer<typeof mountEnabledV1> }
  | { type: 'MountTuned' | 'AuthMethodTuned'; data: z.infer<typeof mountTunedV1> }
  | { type: 'MountDisabled' | 'AuthMethodDisabled'; data: z.infer<typeof mountDisabledV1> };

export const MOUNT_EVENT_SCHEMAS = {
  MountEnabled: mountEnabledV1,
  AuthMethodEnabled: mountEnabledV1,
  MountTuned: mountTunedV1,
  AuthMethodTuned: mountTunedV1,
  MountDisabled: mountDisabledV1,
  AuthMethodDisabled: mountDisabledV1,
} as const;
