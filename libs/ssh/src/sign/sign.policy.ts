import {
  invalidRequest,
  SYSTEM_DEFAULT_LEASE_TTL,
  SYSTEM_MAX_LEASE_TTL,
  type MountInfo,
} from '@coffer/contracts';
import { splitList } from '../roles/role.decider';
import type { SshRole } from '../roles/role.model';

/** Vault's certificate rules (path_issue_sign.go), pure: each answers a value or a 400. */

const unique = (list: readonly string[]): string[] => [...new Set(list)];

export function certificateType(requested: string, role: SshRole): 'user' | 'host' {
  if (requested === 'user') {
    if (!role.allow_user_certificates) throw invalidRequest("cert_type 'user' is not allowed by role");
    return 'user';
  }
  if (requested === 'host') {
    if (!role.allow_host_certificates) throw invalidRequest("cert_type 'host' is not allowed by role");
    return 'host';
  }
  throw invalidRequest("cert_type must be either 'user' or 'host'");
}

/** key_id if the role lets users set it, else key_id_format with its variables filled in. */
export function keyId(
  requested: string,
  role: SshRole,
  vars: { displayName: string; roleName: string; publicKeyHash: string },
): string {
  if (requested !== '') {
    if (!role.allow_user_key_ids) throw invalidRequest('setting key_id is not allowed by role');
    return requested;
  }
  let format =
    vars.displayName === ''
      ? 'vault-{{public_key_hash}}'
      : 'vault-{{token_display_name}}-{{public_key_hash}}';
  if (role.key_id_format !== '') format = role.key_id_format;
  return format
    .replaceAll('{{token_display_name}}', vars.displayName)
    .replaceAll('{{role_name}}', vars.roleName)
    .replaceAll('{{public_key_hash}}', vars.publicKeyHash);
}

const hostAllowed =
  (role: SshRole) =>
  (allowed: readonly string[], principal: string): boolean =>
    allowed.some(
      (domain) =>
        (domain === principal && role.allow_bare_domains) ||
        (role.allow_subdomains && principal.endsWith(`.${domain}`)),
    );

/**
 * The certificate's principals: valid_principals (else the default user for user certificates)
 * against allowed_users (user) or allowed_domains (host). `allowed` is the role's list with any
 * identity templates already rendered (one entry per rendered entry: no comma splitting after).
 */
export function validPrincipals(
  requested: string | undefined,
  role: SshRole,
  certType: 'user' | 'host',
  allowed: readonly string[],
): string[] {
  const defaultPrincipal = certType === 'user' ? role.default_user : '';
  let principals = unique(splitList(requested ?? defaultPrincipal));
  if (principals.length === 0 && defaultPrincipal !== '') principals = [defaultPrincipal];
  if (principals.length === 0) {
    if (role.allow_empty_principals) return [];
    throw invalidRequest('empty valid principals not allowed by role');
  }
  if (allowed.length === 0) throw invalidRequest('role is not configured to allow any principals');
  const allowedText = certType === 'user' ? role.allowed_users : role.allowed_domains;
  if (allowedText === '*') return principals;
  const check =
    certType === 'user' ? (list: readonly string[], p: string) => list.includes(p) : hostAllowed(role);
  for (const principal of principals) {
    if (!check(allowed, principal))
      throw invalidRequest(`${principal} is not a valid value for valid_principals`);
  }
  return principals;
}

/** TTL in seconds: requested (never above max_ttl), else the role's, else the mount's. */
export function certificateTtl(
  requested: number | undefined,
  role: SshRole,
  mount: Pick<MountInfo, 'config'>,
): number {
  if (requested !== undefined && requested < 0) throw invalidRequest('ttl must not be negative');
  let ttl = requested ?? role.ttl;
  if (ttl === 0) ttl = mount.config.default_lease_ttl || SYSTEM_DEFAULT_LEASE_TTL;
  const max = role.max_ttl || mount.config.max_lease_ttl || SYSTEM_MAX_LEASE_TTL;
  if (ttl > max) {
    if (requested === undefined) return max;
    throw invalidRequest(`ttl is larger than maximum allowed ${max}`);
  }
  return ttl;
}

/** Requested critical options against allowed_critical_options ("" allows any); none: the defaults. */
export function criticalOptions(requested: Record<string, string>, role: SshRole): Record<string, string> {
  if (Object.keys(requested).length === 0) return role.default_critical_options;
  if (role.allowed_critical_options !== '') {
    const allowed = role.allowed_critical_options.split(',');
    const refused = Object.keys(requested).filter((o) => !allowed.includes(o));
    if (refused.length > 0)
      throw invalidRequest(`critical options not on allowed list: [${refused.join(' ')}]`);
  }
  return requested;
}

/** Requested extensions against allowed_extensions ("*" any, "" none); none: the defaults. */
export function extensions(requested: Record<string, string>, role: SshRole): Record<string, string> {
  if (Object.keys(requested).length === 0) return role.default_extensions;
  if (role.allowed_extensions === '*') return requested;
  const allowed = role.allowed_extensions.split(',');
  const refused = Object.keys(requested).filter((e) => !allowed.includes(e));
  if (refused.length > 0) throw invalidRequest(`extensions [${refused.join(' ')}] are not on allowed list`);
  return requested;
}

/** The subject key's family and size, as allowed_user_key_lengths names them. */
export interface SubjectKey {
  family: 'rsa' | 'dsa' | 'ecdsa' | 'ed25519';
  bits: number;
}

const EC_NAMES: Record<number, string> = {
  256: 'ecdsa-sha2-nistp256',
  384: 'ecdsa-sha2-nistp384',
  521: 'ecdsa-sha2-nistp521',
};

/** allowed_user_key_lengths: the key's type must be listed, and RSA/DSA/ECDSA sizes among the values. */
export function checkKeyRequirements(key: SubjectKey, role: SshRole): void {
  const lengths = role.allowed_user_key_lengths;
  if (Object.keys(lengths).length === 0) return;
  const names: Record<SubjectKey['family'], string[]> = {
    rsa: ['rsa', 'ssh-rsa'],
    dsa: ['dsa', 'ssh-dss'],
    ecdsa: ['ecdsa', 'ec', ...(EC_NAMES[key.bits] ? [EC_NAMES[key.bits] ?? ''] : [])],
    ed25519: ['ed25519', 'ssh-ed25519'],
  };
  let present = false;
  let pass = false;
  for (const name of names[key.family]) {
    if (!Object.hasOwn(lengths, name)) continue;
    present = true;
    for (const value of lengths[name] ?? []) {
      const sized = key.family === 'rsa' || key.family === 'dsa' || name === 'ec' || name === 'ecdsa';
      if (!sized || key.bits === value) pass = true;
    }
  }
  const fail = (why: string) => invalidRequest(`public_key failed to meet the key requirements: ${why}`);
  if (!present) throw fail(`key of type ${key.family} is not allowed`);
  if (!pass) throw fail(`key is of an invalid size: ${key.bits}`);
}

/** algorithm_signer against the CA key: "" picks rsa-sha2-256 for RSA; RSA names need an RSA CA. */
export function signatureAlgorithm(role: SshRole, caIsRsa: boolean): string | undefined {
  if (role.algorithm_signer === '') return caIsRsa ? 'rsa-sha2-256' : undefined;
  if (!caIsRsa)
    throw invalidRequest(
      `algorithm_signer ${JSON.stringify(role.algorithm_signer)} needs an RSA CA key; leave it blank for this CA`,
    );
  return role.algorithm_signer;
}

/** The principals list with each entry rendered on its own (a rendered comma cannot add entries). */
export function renderAllowedList(
  text: string,
  templated: boolean,
  render: (entry: string) => string | undefined,
): string[] {
  const entries = unique(splitList(text));
  if (!templated) return entries;
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.includes('{{')) {
      out.push(entry);
      continue;
    }
    const rendered = render(entry);
    if (rendered === undefined) continue;
    if (rendered.includes(',') || rendered.trim() !== rendered || rendered === '')
      throw invalidRequest(`template '${entry}' rendered a value that is not a single principal`);
    out.push(rendered);
  }
  return unique(out);
}
