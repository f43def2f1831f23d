import { isIP } from 'node:net';
import { cidrAllows, invalidRequest } from '@coffer/contracts';
import { splitList } from '../roles/role.decider';
import type { SshRole } from '../roles/role.model';

/** Which hosts a role covers (Vault's validateIP and roleContainsIP), pure. */

/** The IP in canonical text, or Vault's 400. */
export function parseIp(raw: string): string {
  if (raw === '') throw invalidRequest('Missing ip');
  const bare = raw.trim();
  if (isIP(bare) === 0) throw invalidRequest(`Invalid IP ${JSON.stringify(raw)}`);
  return bare.toLowerCase();
}

/** Whether the role's cidr_list contains the IP and its exclude_cidr_list does not. */
export function roleCoversIp(role: Pick<SshRole, 'cidr_list' | 'exclude_cidr_list'>, ip: string): boolean {
  const cidrs = splitList(role.cidr_list);
  if (cidrs.length === 0 || !cidrAllows(cidrs, ip)) return false;
  const excluded = splitList(role.exclude_cidr_list);
  return excluded.length === 0 || !cidrAllows(excluded, ip);
}

/** creds' IP check: zero-address roles take any IP; others their CIDR blocks minus the excluded. */
export function checkIp(
  roleName: string,
  role: SshRole,
  ip: string,
  zeroAddressRoles: readonly string[],
): void {
  if (zeroAddressRoles.includes(roleName)) return;
  if (!roleCoversIp(role, ip)) throw invalidRequest('Error validating IP: IP does not belong to role');
}

/** creds' username: the default user, or one allowed_users lists ("" or "*" allows any). */
export function credsUsername(requested: string, role: SshRole): string {
  if (requested === '') {
    if (role.default_user === '')
      throw invalidRequest("No default username registered. Use 'username' option");
    return role.default_user;
  }
  if (requested === role.default_user) return requested;
  if (role.allowed_users === '' || role.allowed_users === '*') return requested;
  if (splitList(role.allowed_users).includes(requested)) return requested;
  throw invalidRequest('Username is not present is allowed users list');
}
