import { sshRoleWriteBodySchema } from '@coffer/contracts/ssh';
import { decideRole } from '../roles/role.decider';
import type { SshRole } from '../roles/role.model';

/** A role as written through the contract (weak fields parsed, defaults applied). */
export function roleFrom(body: Record<string, unknown>, keyExists = true): SshRole {
  return decideRole(sshRoleWriteBodySchema.parse(body), () => keyExists);
}

export const caRole = (body: Record<string, unknown> = {}): SshRole =>
  roleFrom({ key_type: 'ca', allow_user_certificates: true, ...body });
