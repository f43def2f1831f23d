import { z } from 'zod';
import {
  weakBool,
  weakDuration,
  weakInt,
  weakMap,
  weakString,
  weakStringList,
  weakStringMap,
} from '../fields/weak-fields';
import { stringMapSchema } from '../fields/json-object';

/** Request and response schemas of the SSH engine (Vault's builtin/logical/ssh). */

export const SSH_KEY_TYPES = ['otp', 'dynamic', 'ca'] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

export const nameParamsSchema = z.object({ name: z.string() });

export const sshKeyWriteBodySchema = z.object({
  key: weakString({ default: '', description: 'SSH private key with privileges on the remote hosts.' }),
});

/** Every role parameter; what applies depends on key_type (validated by the role decider). */
export const sshRoleWriteBodySchema = z.object({
  key_type: weakString({ default: '', description: '"otp", "dynamic" or "ca".' }),
  key: weakString({ default: '', description: 'Name of a registered key (dynamic).' }),
  admin_user: weakString({ default: '', description: 'Admin user on the remote host (dynamic).' }),
  default_user: weakString({ default: '', description: 'Username when creds gives none.' }),
  cidr_list: weakString({ default: '', description: 'Comma-separated CIDR blocks the role covers.' }),
  exclude_cidr_list: weakString({ default: '', description: 'Comma-separated CIDR blocks excluded.' }),
  port: weakInt({ default: 0, description: 'SSH port (22).' }),
  key_bits: weakInt({ default: 0, description: 'RSA dynamic key length: 1024 (default) or 2048.' }),
  install_script: weakString({ default: '', description: 'Install/uninstall script (dynamic).' }),
  allowed_users: weakString({ default: '', description: 'Comma-separated usernames; "*" any.' }),
  allowed_users_template: weakBool({ default: false }),
  allowed_domains: weakString({ default: '', description: 'Domains of host certificates; "*" any.' }),
  key_option_specs: weakString({ default: '', description: 'Options prefixed to dynamic keys.' }),
  ttl: weakDuration({ default: 0 }),
  max_ttl: weakDuration({ default: 0 }),
  allowed_critical_options: weakString({ default: '' }),
  allowed_extensions: weakString({ default: '' }),
  default_critical_options: weakStringMap({ default: {} }),
  default_extensions: weakStringMap({ default: {} }),
  allow_user_certificates: weakBool({ default: false }),
  allow_host_certificates: weakBool({ default: false }),
  allow_bare_domains: weakBool({ default: false }),
  allow_subdomains: weakBool({ default: false }),
  allow_user_key_ids: weakBool({ default: false }),
  allow_empty_principals: weakBool({ default: false }),
  key_id_format: weakString({ default: '' }),
  allowed_user_key_lengths: weakMap({ default: {} }),
  algorithm_signer: weakString({ default: '' }),
  not_before_duration: weakDuration({ default: 30 }),
});

/** A role as read: the fields of its key type only (Vault's parseRole). */
export const sshRoleReadSchema = z.object({
  key_type: z.string(),
  key: z.string().optional(),
  admin_user: z.string().optional(),
  default_user: z.string().optional(),
  cidr_list: z.string().optional(),
  exclude_cidr_list: z.string().optional(),
  port: z.number().int().optional(),
  key_bits: z.number().int().optional(),
  install_script: z.string().optional(),
  allowed_users: z.string().optional(),
  allowed_users_template: z.boolean().optional(),
  allowed_domains: z.string().optional(),
  key_option_specs: z.string().optional(),
  ttl: z.number().int().optional(),
  max_ttl: z.number().int().optional(),
  allowed_critical_options: z.string().optional(),
  allowed_extensions: z.string().optional(),
  default_critical_options: stringMapSchema.optional(),
  default_extensions: stringMapSchema.optional(),
  allow_user_certificates: z.boolean().optional(),
  allow_host_certificates: z.boolean().optional(),
  allow_bare_domains: z.boolean().optional(),
  allow_subdomains: z.boolean().optional(),
  allow_user_key_ids: z.boolean().optional(),
  allow_empty_principals: z.boolean().optional(),
  key_id_format: z.string().optional(),
  allowed_user_key_lengths: z.record(z.string(), z.array(z.number().int())).optional(),
  algorithm_signer: z.string().optional(),
  not_before_duration: z.number().int().optional(),
});
export type SshRoleRead = z.infer<typeof sshRoleReadSchema>;

export const sshRoleListSchema = z.object({
  keys: z.array(z.string()),
  key_info: z.record(z.string(), z.object({ key_type: z.string() })),
});

export const sshZeroAddressBodySchema = z.object({
  roles: weakStringList({ default: [], description: 'Role names allowed for any IP.' }),
});
export const sshRolesDataSchema = z.object({ roles: z.array(z.string()) });

export const sshCredsBodySchema = z.object({
  username: weakString({ default: '' }),
  ip: weakString({ default: '' }),
});

/** creds: an OTP (ip, key, key_type, port, username) or a dynamic key (and the role's settings). */
export const sshCredsDataSchema = z.object({
  key_type: z.string(),
  key: z.string(),
  username: z.string(),
  ip: z.string(),
  port: z.number().int(),
  admin_user: z.string().optional(),
  allowed_users: z.string().optional(),
  cidr_list: z.string().optional(),
  default_user: z.string().optional(),
  exclude_cidr_list: z.string().optional(),
  install_script: z.string().optional(),
  key_bits: z.number().int().optional(),
  key_option_specs: z.string().optional(),
});

export const sshLookupBodySchema = z.object({ ip: weakString({ default: '' }) });

export const sshVerifyBodySchema = z.object({
  otp: weakString({ default: '' }),
  /** Coffer: when the host sends who is logging in from where, a mismatch leaves the OTP unused. */
  username: weakString({ default: '' }),
  ip: weakString({ default: '' }),
});
export const sshVerifyDataSchema = z.object({
  username: z.string().optional(),
  ip: z.string().optional(),
  role_name: z.string().optional(),
  message: z.string().optional(),
});

export const sshCaWriteBodySchema = z.object({
  private_key: weakString({ default: '' }),
  public_key: weakString({ default: '' }),
  generate_signing_key: weakBool(),
  key_type: weakString({ default: 'ssh-rsa', description: 'Generated key: ssh-rsa, ecdsa-*, ssh-ed25519.' }),
  key_bits: weakInt({ default: 0 }),
});
export const sshPublicKeyDataSchema = z.object({ public_key: z.string() });

export const sshSignBodySchema = z.object({
  public_key: weakString({ default: '' }),
  ttl: weakDuration(),
  valid_principals: weakString(),
  cert_type: weakString({ default: 'user' }),
  key_id: weakString({ default: '' }),
  critical_options: weakStringMap({ default: {} }),
  extensions: weakStringMap({ default: {} }),
});
export const sshSignDataSchema = z.object({ serial_number: z.string(), signed_key: z.string() });
