import { z } from 'zod';
import { connectionSchema, passwordSettingsSchema, type RecordEvent, type RecordKind } from './record.events';

/**
 * How long after a check-out its lease may still be on its way: the gateway registers it after
 * the answer and waits at most its engine time-out (`controller.engine_timeout`, 10 s by default),
 * so a borrower can only hold an account whose lease committed within that wait.
 */
export const CHECKOUT_LEASE_GRACE_MS = 30_000;

/**
 * The state of each record, folded from its events (pure). What the read model keeps,
 * barrier-encrypted, and what services decide on.
 */
export const passwordStateSchema = z.object({
  current: z.string().nullable(),
  last: z.string().nullable(),
  /** announced in the log, maybe already in the directory, not yet confirmed */
  pending: z.object({ password: z.string(), at: z.string() }).nullable(),
  last_rotation: z.string().nullable(),
});
export type PasswordState = z.infer<typeof passwordStateSchema>;

export const checkoutSchema = z.object({
  checkout_id: z.string(),
  entity_id: z.string(),
  token_ref: z.string(),
  accessor: z.string(),
  at: z.string().optional(),
  /** core-sys was seen holding its lease */
  leased: z.boolean().optional(),
});
export type CheckOut = z.infer<typeof checkoutSchema>;

export const configStateSchema = z.object({
  kind: z.literal('config'),
  connection: connectionSchema,
  passwords: passwordSettingsSchema,
  /** the bind password: current = bindpass */
  password: passwordStateSchema,
});
export const roleStateSchema = z.object({
  kind: z.literal('role'),
  service_account_name: z.string(),
  ttl: z.number().int(),
  password: passwordStateSchema,
});
export const setStateSchema = z.object({
  kind: z.literal('set'),
  service_account_names: z.array(z.string()),
  ttl: z.number().int(),
  max_ttl: z.number().int(),
  disable_check_in_enforcement: z.boolean(),
});
export const accountStateSchema = z.object({
  kind: z.literal('account'),
  set: z.string(),
  password: passwordStateSchema,
  checkout: checkoutSchema.nullable(),
});
export const recordStateSchema = z.discriminatedUnion('kind', [
  configStateSchema,
  roleStateSchema,
  setStateSchema,
  accountStateSchema,
]);
export type ConfigState = z.infer<typeof configStateSchema>;
export type RoleState = z.infer<typeof roleStateSchema>;
export type SetState = z.infer<typeof setStateSchema>;
export type AccountState = z.infer<typeof accountStateSchema>;
export type RecordState = z.infer<typeof recordStateSchema>;
export type StateOf<K extends RecordKind> = Extract<RecordState, { kind: K }>;

const NO_PASSWORD: PasswordState = { current: null, last: null, pending: null, last_rotation: null };

function evolvePassword(state: PasswordState, event: RecordEvent): PasswordState {
  if (event.type === 'DirectoryPasswordRotationIntended')
    return { ...state, pending: { password: event.data.password, at: event.data.at } };
  if (event.type === 'DirectoryPasswordRotationAbandoned') return { ...state, pending: null };
  if (event.type !== 'DirectoryPasswordRotated' || !state.pending) return state;
  return {
    current: state.pending.password,
    last: state.current,
    pending: null,
    last_rotation: event.data.at,
  };
}

/** The record after `event` (undefined: it does not exist). */
export function evolve(
  kind: RecordKind,
  state: RecordState | undefined,
  event: RecordEvent,
): RecordState | undefined {
  switch (event.type) {
    case 'DirectoryRecordDeleted':
      return undefined;
    case 'DirectoryConfigWritten': {
      const previous = state?.kind === 'config' ? state.password : NO_PASSWORD;
      const password =
        event.data.bindpass === undefined
          ? previous
          : { ...previous, current: event.data.bindpass, pending: null };
      return { kind: 'config', connection: event.data.connection, passwords: event.data.passwords, password };
    }
    case 'DirectoryRoleWritten': {
      const password = state?.kind === 'role' ? state.password : NO_PASSWORD;
      return { kind: 'role', ...event.data, password };
    }
    case 'DirectorySetWritten':
      return { kind: 'set', ...event.data };
    case 'DirectoryAccountEnrolled':
      return { kind: 'account', set: event.data.set, password: NO_PASSWORD, checkout: null };
    case 'DirectoryAccountCheckedOut':
      return state?.kind === 'account' ? { ...state, checkout: event.data } : state;
    case 'DirectoryCheckOutLeased':
      return state?.kind === 'account' && state.checkout?.checkout_id === event.data.checkout_id
        ? { ...state, checkout: { ...state.checkout, leased: true } }
        : state;
    case 'DirectoryPasswordRotated':
      if (state?.kind === 'account')
        return { ...state, password: evolvePassword(state.password, event), checkout: null };
      return withPassword(state, event);
    case 'DirectoryPasswordRotationIntended':
    case 'DirectoryPasswordRotationAbandoned':
      return kind === 'set' ? state : withPassword(state, event);
  }
}

function withPassword(state: RecordState | undefined, event: RecordEvent): RecordState | undefined {
  if (!state || state.kind === 'set') return state;
  return { ...state, password: evolvePassword(state.password, event) };
}

/** When the rotation sweep should look at the record next (null: never on its own). */
export function dueAt(state: RecordState): Date | null {
  if (state.kind === 'role') {
    if (!state.password.last_rotation || state.ttl <= 0) return null;
    return new Date(Date.parse(state.password.last_rotation) + state.ttl * 1000);
  }
  // an enrolled account whose first password could not be set yet is due at once
  if (state.kind === 'account' && state.password.current === null) return new Date(0);
  // a check-out whose lease core-sys is not known to hold: checked once it cannot be coming any more
  if (state.kind === 'account' && state.checkout?.at && !state.checkout.leased)
    return new Date(Date.parse(state.checkout.at) + CHECKOUT_LEASE_GRACE_MS);
  return null;
}

export function pendingSince(state: RecordState): Date | null {
  if (state.kind === 'set' || !state.password.pending) return null;
  return new Date(state.password.pending.at);
}

/** The password a record holds (a set holds none). */
export function passwordOf(state: RecordState): PasswordState | null {
  return state.kind === 'set' ? null : state.password;
}
