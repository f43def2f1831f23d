import { invalidRequest } from '@coffer/contracts';
import type { directoryRoleReadSchema } from '@coffer/contracts/directory';
import type { z } from 'zod';
import type { PasswordSettings } from '../records/record.events';
import type { RoleState } from '../records/record.state';

/** A role's ttl: 0 is the config's; above the config's max_ttl is refused (Vault's getValidatedTTL). */
export function roleTtl(requested: number, passwords: PasswordSettings): number {
  const ttl = requested === 0 ? passwords.ttl : requested;
  if (ttl > passwords.max_ttl)
    throw invalidRequest(
      `requested ttl of ${ttl} seconds is over the max ttl of ${passwords.max_ttl} seconds`,
    );
  if (ttl < 0) throw invalidRequest("ttl can't be negative");
  return ttl;
}

/**
 * Whether creds must rotate first (Vault's credReadOperation): never rotated by Coffer, changed in
 * the directory after Coffer's rotation + tolerance (seconds), or older than the role's ttl.
 */
export function roleNeedsRotation(
  role: RoleState,
  directoryLastSet: Date | null,
  now: Date,
  toleranceSeconds: number,
): boolean {
  const last = role.password.last_rotation;
  if (!last || !role.password.current) return true;
  const lastMs = Date.parse(last);
  if (directoryLastSet && directoryLastSet.getTime() > lastMs + toleranceSeconds * 1000) return true;
  return role.ttl > 0 && now.getTime() > lastMs + role.ttl * 1000;
}

/** The login of a service account: what precedes "@" (my_app@example.com → my_app). */
export const usernameOf = (serviceAccountName: string): string => serviceAccountName.split('@')[0] ?? '';

/**
 * A role as its read answers it (never its passwords). `passwordLastSet` is the directory's, asked
 * at the read: the log does not hold it, so a role's history answers without it.
 */
export function directoryRoleView(
  role: RoleState,
  passwordLastSet: Date | null,
): z.output<typeof directoryRoleReadSchema> {
  return {
    service_account_name: role.service_account_name,
    ttl: role.ttl,
    ...(role.password.last_rotation ? { last_vault_rotation: role.password.last_rotation } : {}),
    ...(passwordLastSet ? { password_last_set: passwordLastSet.toISOString() } : {}),
  };
}
