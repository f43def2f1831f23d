import { z } from 'zod';
import { LEASE_REGISTRATION_GRACE_MS } from '../../shared/lease-presence';
import {
  cloudARoleSchema,
  cloudASettingsSchema,
  credentialPlanSchema,
  credentialProgressSchema,
  type CloudAEvent,
  type CloudARecordKind,
} from './cloud-a-record.events';

export const cloudARecordStateSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('config'), settings: cloudASettingsSchema }),
  z.object({ kind: z.literal('role'), role: cloudARoleSchema }),
  z.object({
    kind: z.literal('cred'),
    plan: credentialPlanSchema,
    created: credentialProgressSchema,
    phase: z.enum(['creating', 'issued', 'leased', 'abandoned']),
    /** ISO time of `…Issued`: the lease check is due LEASE_REGISTRATION_GRACE_MS later */
    issued_at: z.string().optional(),
  }),
]);
export type CloudARecordState = z.infer<typeof cloudARecordStateSchema>;
export type CloudAStateOf<K extends CloudARecordKind> = Extract<CloudARecordState, { kind: K }>;

/** Folds one event into a record's state; undefined = the record does not exist (any more). */
export function evolveCloudA(
  kind: CloudARecordKind,
  state: CloudARecordState | undefined,
  event: CloudAEvent,
): CloudARecordState | undefined {
  switch (event.type) {
    case 'CloudAConfigWritten':
      return { kind: 'config', settings: event.data.settings };
    case 'CloudARoleWritten':
      return { kind: 'role', role: event.data.role };
    case 'CloudARecordDeleted':
    case 'CloudACredentialRemoved':
      return undefined;
    case 'CloudACredentialIntended':
      return { kind: 'cred', plan: event.data, created: {}, phase: 'creating' };
    case 'CloudACredentialProgressed':
      return state?.kind === 'cred' ? { ...state, created: { ...state.created, ...event.data } } : state;
    case 'CloudACredentialIssued':
      return state?.kind === 'cred' ? { ...state, phase: 'issued', issued_at: event.data.at } : state;
    case 'CloudACredentialLeased':
      return state?.kind === 'cred' ? { ...state, phase: 'leased' } : state;
    case 'CloudACredentialAbandoned':
      return state?.kind === 'cred' ? { ...state, phase: 'abandoned' } : state;
    default:
      return kind === 'config' ? state : state;
  }
}

/**
 * When the recovery pass looks at the record: a creation not issued once its deadline passes, an
 * issued credential once its lease must have been registered; never a config, role or leased one.
 */
export function pendingUntil(state: CloudARecordState): Date | null {
  if (state.kind !== 'cred' || state.phase === 'leased') return null;
  if (state.phase !== 'issued') return new Date(state.plan.pending_until);
  return state.issued_at ? new Date(Date.parse(state.issued_at) + LEASE_REGISTRATION_GRACE_MS) : null;
}
