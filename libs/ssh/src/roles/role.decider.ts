import { invalidRequest, validateCidr, type RequestOf } from '@coffer/contracts';
import type { ssh, SshRoleRead } from '@coffer/contracts/ssh';
import { DEFAULT_INSTALL_SCRIPT } from '../creds/install-script';
import type { SshRole } from './role.model';

type RoleBody = RequestOf<typeof ssh.roleWrite>['body'];

export const ALGORITHM_SIGNERS = ['ssh-rsa', 'rsa-sha2-256', 'rsa-sha2-512'] as const;
export const DYNAMIC_KEY_BITS = [1024, 2048] as const;

/** Comma-separated CIDR blocks, each checked; `text` words the failure as Vault does. */
export function checkCidrList(list: string, text: (bad: string) => string): void {
  for (const entry of splitList(list)) {
    try {
      validateCidr(entry);
    } catch {
      throw invalidRequest(text(entry));
    }
  }
}

/** Vault's strutil.ParseStringSlice(s, ","): trimmed, empty entries dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** allowed_user_key_lengths: each value an int, a numeric string or a list of them. */
export function parseKeyLengths(raw: Record<string, unknown>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  const toInt = (value: unknown): number => {
    const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw invalidRequest(
        `error processing allowed_user_key_lengths: cannot parse ${JSON.stringify(value)} as int`,
      );
    return n;
  };
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    Object.defineProperty(out, key, {
      value: Array.isArray(value) ? value.map(toInt) : [toInt(value)],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A role write (Vault's pathRoleWrite): the parameters of its key type, validated, with the
 * defaults applied. `keyExists` tells whether a registered key of that name exists (dynamic).
 */
export function decideRole(body: RoleBody, keyExists: (name: string) => boolean): SshRole {
  if (body.cidr_list !== '') checkCidrList(body.cidr_list, () => 'failed to validate cidr_list');
  if (body.exclude_cidr_list !== '')
    checkCidrList(body.exclude_cidr_list, (bad) => `failed to validate exclude_cidr_list entry: ${bad}`);
  const keyType = body.key_type.toLowerCase();
  if (keyType === '') throw invalidRequest('missing key type');
  const base: SshRole = {
    key_type: 'otp',
    key: '',
    admin_user: '',
    default_user: body.default_user,
    cidr_list: body.cidr_list,
    exclude_cidr_list: body.exclude_cidr_list,
    port: body.port === 0 ? 22 : body.port,
    key_bits: 0,
    install_script: '',
    allowed_users: body.allowed_users,
    allowed_users_template: false,
    allowed_domains: '',
    key_option_specs: '',
    ttl: 0,
    max_ttl: 0,
    allowed_critical_options: '',
    allowed_extensions: '',
    default_critical_options: {},
    default_extensions: {},
    allow_user_certificates: false,
    allow_host_certificates: false,
    allow_bare_domains: false,
    allow_subdomains: false,
    allow_user_key_ids: false,
    allow_empty_principals: false,
    key_id_format: '',
    allowed_user_key_lengths: {},
    algorithm_signer: '',
    not_before_duration: 30,
  };
  if (body.port < 0 || body.port > 65535) throw invalidRequest('invalid port');
  for (const field of ['ttl', 'max_ttl', 'not_before_duration'] as const)
    if (body[field] < 0) throw invalidRequest(`${field} must not be negative`);
  if (keyType === 'otp') {
    if (body.default_user === '') throw invalidRequest('missing default user');
    if (body.admin_user !== '') throw invalidRequest('admin user not required for OTP type');
    return base;
  }
  if (keyType === 'dynamic') {
    if (body.default_user === '') throw invalidRequest('missing default user');
    if (body.key === '') throw invalidRequest('missing key name');
    if (!keyExists(body.key)) throw invalidRequest(`invalid 'key': ${JSON.stringify(body.key)}`);
    if (body.admin_user === '') throw invalidRequest('missing admin username');
    const bits = body.key_bits === 0 ? 1024 : body.key_bits;
    if (!(DYNAMIC_KEY_BITS as readonly number[]).includes(bits))
      throw invalidRequest('invalid key_bits field');
    return {
      ...base,
      key_type: 'dynamic',
      key: body.key,
      admin_user: body.admin_user,
      key_bits: bits,
      install_script: body.install_script === '' ? DEFAULT_INSTALL_SCRIPT : body.install_script,
      key_option_specs: body.key_option_specs,
    };
  }
  if (keyType !== 'ca') throw invalidRequest('invalid key type');
  const signer = body.algorithm_signer === 'default' ? '' : body.algorithm_signer;
  if (signer !== '' && !(ALGORITHM_SIGNERS as readonly string[]).includes(signer))
    throw invalidRequest(`unknown algorithm signer ${JSON.stringify(signer)}`);
  if (!body.allow_user_certificates && !body.allow_host_certificates)
    throw invalidRequest(
      "Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'",
    );
  if (body.ttl !== 0 && body.max_ttl !== 0 && body.ttl > body.max_ttl)
    throw invalidRequest('"ttl" value must be less than "max_ttl" when both are specified');
  return {
    ...base,
    key_type: 'ca',
    port: 0,
    cidr_list: '',
    exclude_cidr_list: '',
    allowed_users_template: body.allowed_users_template,
    allowed_domains: body.allowed_domains,
    ttl: body.ttl,
    max_ttl: body.max_ttl,
    allowed_critical_options: body.allowed_critical_options,
    allowed_extensions: body.allowed_extensions,
    default_critical_options: body.default_critical_options,
    default_extensions: body.default_extensions,
    allow_user_certificates: body.allow_user_certificates,
    allow_host_certificates: body.allow_host_certificates,
    allow_bare_domains: body.allow_bare_domains,
    allow_subdomains: body.allow_subdomains,
    allow_user_key_ids: body.allow_user_key_ids,
    allow_empty_principals: body.allow_empty_principals,
    key_id_format: body.key_id_format,
    allowed_user_key_lengths: parseKeyLengths(body.allowed_user_key_lengths),
    algorithm_signer: signer,
    not_before_duration: body.not_before_duration,
  };
}

/** A role as read: the fields of its key type (Vault's parseRole). */
export function roleView(role: SshRole): SshRoleRead {
  const common = {
    key_type: role.key_type,
    default_user: role.default_user,
    allowed_users: role.allowed_users,
  };
  if (role.key_type === 'otp')
    return {
      ...common,
      cidr_list: role.cidr_list,
      exclude_cidr_list: role.exclude_cidr_list,
      port: role.port,
    };
  if (role.key_type === 'dynamic')
    return {
      ...common,
      key: role.key,
      admin_user: role.admin_user,
      cidr_list: role.cidr_list,
      exclude_cidr_list: role.exclude_cidr_list,
      port: role.port,
      key_bits: role.key_bits,
      key_option_specs: role.key_option_specs,
      install_script: role.install_script,
    };
  return {
    ...common,
    allowed_users_template: role.allowed_users_template,
    allowed_domains: role.allowed_domains,
    ttl: role.ttl,
    max_ttl: role.max_ttl,
    allowed_critical_options: role.allowed_critical_options,
    allowed_extensions: role.allowed_extensions,
    allow_user_certificates: role.allow_user_certificates,
    allow_host_certificates: role.allow_host_certificates,
    allow_bare_domains: role.allow_bare_domains,
    allow_subdomains: role.allow_subdomains,
    allow_user_key_ids: role.allow_user_key_ids,
    allow_empty_principals: role.allow_empty_principals,
    key_id_format: role.key_id_format,
    key_bits: role.key_bits,
    default_critical_options: role.default_critical_options,
    default_extensions: role.default_extensions,
    allowed_user_key_lengths: role.allowed_user_key_lengths,
    algorithm_signer: role.algorithm_signer === '' ? 'default' : role.algorithm_signer,
    not_before_duration: role.not_before_duration,
  };
}
