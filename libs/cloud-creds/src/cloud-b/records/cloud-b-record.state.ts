import { z } from 'zod';
import { roleEntrySchema, rootSettingsSchema, type CloudBEvent } from './cloud-b-record.events';

/** The state of each cloud-b record, folded from its events (pure): what the read model keeps, sealed. */
export const rootStateSchema = rootSettingsSchema.extend({
  kind: z.literal('root'),
  /** a rotate-root under way: the new key is set once it exists (`switched`) */
  rotation: z
    .object({ user_name: z.string(), old_access_key: z.string(), switched: z.boolean(), at: z.string() })
    .nullable(),
});
export const leaseStateSchema = z.object({
  kind: z.literal('lease'),
  lease: z.number().int(),
  lease_max: z.number().int(),
});
export const roleStateSchema = roleEntrySchema.extend({ kind: z.literal('role') });
export const userStateSchema = z.object({
  kind: z.literal('user'),
  role: z.string(),
  status: z.enum(['intended', 'issued', 'leased', 'removing']),
  /** when it entered that status */
  at: z.string(),
});

export const cloudBStateSchema = z.discriminatedUnion('kind', [
  rootStateSchema,
  leaseStateSchema,
  roleStateSchema,
  userStateSchema,
]);
export type CloudBState = z.infer<typeof cloudBStateSchema>;
export type CloudBStateOf<K extends CloudBState['kind']> = Extract<CloudBState, { kind: K }>;

/** The record after `event` (undefined: it does not exist). */
export function evolveCloudB(state: CloudBState | undefined, event: CloudBEvent): CloudBState | undefined {
  switch (event.type) {
    case 'CloudBRecordDeleted':
      return undefined;
    case 'CloudBRootConfigWritten':
      return { kind: 'root', ...event.data, rotation: state?.kind === 'root' ? state.rotation : null };
    case 'CloudBRootRotationIntended':
      return state?.kind === 'root' ? { ...state, rotation: { ...event.data, switched: false } } : state;
    case 'CloudBRootKeySwitched':
      return state?.kind === 'root' && state.rotation
        ? {
            ...state,
            access_key: event.data.access_key,
            secret_key: event.data.secret_key,
            rotation: { ...state.rotation, switched: true, at: event.data.at },
          }
        : state;
    case 'CloudBRootRotationSettled':
      return state?.kind === 'root' ? { ...state, rotation: null } : state;
    case 'CloudBLeaseConfigWritten':
      return { kind: 'lease', ...event.data };
    case 'CloudBRoleWritten':
      return { kind: 'role', ...event.data };
    case 'CloudBUserIntended':
      return { kind: 'user', role: event.data.role, status: 'intended', at: event.data.at };
    case 'CloudBUserIssued':
      return state?.kind === 'user' ? { ...state, status: 'issued', at: event.data.at } : state;
    case 'CloudBUserLeased':
      return state?.kind === 'user' ? { ...state, status: 'leased', at: event.data.at } : state;
    case 'CloudBUserRemovalStarted':
      return state?.kind === 'user' ? { ...state, status: 'removing', at: event.data.at } : state;
  }
}

/**
 * Since when the record has outside work unsettled (the recovery pass looks at these): an issued
 * user's lease is not known to be registered until `UserLeased`.
 */
export function cloudBPendingSince(state: CloudBState): Date | null {
  if (state.kind === 'user') return state.status === 'leased' ? null : new Date(state.at);
  if (state.kind === 'root' && state.rotation) return new Date(state.rotation.at);
  return null;
}
