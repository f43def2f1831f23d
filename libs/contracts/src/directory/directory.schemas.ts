import { z } from 'zod';
import { jsonObjectSchema } from '../fields/json-object';
import { weakBool, weakDuration, weakInt, weakString, weakStringList } from '../fields/weak-fields';

/**
 * Request and response schemas of the directory engine (Vault's Active Directory secrets engine,
 * vault-plugin-secrets-ad, with the openldap schema of vault-plugin-secrets-openldap).
 */

export const DIRECTORY_SCHEMAS = ['ad', 'openldap'] as const;
export type DirectorySchema = (typeof DIRECTORY_SCHEMAS)[number];
export const TLS_VERSIONS = ['tls10', 'tls11', 'tls12', 'tls13'] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

export const directoryNameParams = z.object({ name: z.string() });

/** Every field is optional: a write changes what it sends and keeps the rest (Vault's NewConfigEntry). */
export const directoryConfigBodySchema = z.object({
  url: weakString({ description: 'Comma-separated LDAP URLs tried in order (default ldap://127.0.0.1).' }),
  binddn: weakString({ description: 'DN of the account the engine binds as.' }),
  bindpass: weakString({ description: 'Its password (never read back).' }),
  userdn: weakString({ description: 'Base DN under which service accounts are searched.' }),
  upndomain: weakString({ description: 'Bind as <binddn>@<upndomain>.' }),
  userattr: weakString({
    description: 'Attribute naming service accounts (ad: userPrincipalName, openldap: cn).',
  }),
  schema: weakString({ description: '"ad" (unicodePwd, pwdLastSet) or "openldap" (userPassword).' }),
  certificate: weakString({ description: 'PEM CA certificate of the directory.' }),
  insecure_tls: weakBool(),
  starttls: weakBool(),
  tls_min_version: weakString(),
  tls_max_version: weakString(),
  request_timeout: weakDuration({ description: 'Seconds an LDAP request may take (default 90).' }),
  connection_timeout: weakDuration({ description: 'Seconds to connect before the next URL (default 30).' }),
  case_sensitive_names: weakBool(),
  ttl: weakDuration({ description: 'Default password TTL of roles.' }),
  max_ttl: weakDuration({ description: 'No role may exceed it.' }),
  length: weakInt({ description: 'Deprecated: generated password length (default 64, minimum 14).' }),
  formatter: weakString({ description: 'Deprecated: text containing {{PASSWORD}} once.' }),
  password_policy: weakString({ description: 'Name of a password policy (sys/policies/password).' }),
  last_rotation_tolerance: weakDuration({
    description: 'Seconds a directory last-set time may follow ours.',
  }),
});

export const directoryConfigReadSchema = z.object({
  url: z.string(),
  binddn: z.string(),
  userdn: z.string(),
  upndomain: z.string(),
  userattr: z.string(),
  schema: z.string(),
  certificate: z.string(),
  insecure_tls: z.boolean(),
  starttls: z.boolean(),
  tls_min_version: z.string(),
  tls_max_version: z.string(),
  request_timeout: z.number().int(),
  connection_timeout: z.number().int(),
  case_sensitive_names: z.boolean(),
  ttl: z.number().int(),
  max_ttl: z.number().int(),
  length: z.number().int(),
  formatter: z.string(),
  password_policy: z.string(),
  last_rotation_tolerance: z.number().int(),
  last_bind_password_rotation: z.string().optional(),
});

export const directoryRoleBodySchema = z.object({
  service_account_name: weakString({ default: '' }),
  ttl: weakDuration({ default: 0 }),
});
export const directoryRoleReadSchema = z.object({
  service_account_name: z.string(),
  ttl: z.number().int(),
  last_vault_rotation: z.string().optional(),
  password_last_set: z.string().optional(),
});
export const directoryListSchema = z.object({ keys: z.array(z.string()) });

export const directoryCredsSchema = z.object({
  username: z.string(),
  current_password: z.string(),
  last_password: z.string().optional(),
});

const DAY = 24 * 60 * 60;
export const directorySetBodySchema = z.object({
  service_account_names: weakStringList(),
  ttl: weakDuration({ description: 'Check-out TTL (default 24h; 0 = unlimited).' }),
  max_ttl: weakDuration({ description: 'Check-out max TTL (default 24h; 0 = unlimited).' }),
  disable_check_in_enforcement: weakBool(),
});
export const DEFAULT_SET_TTL = DAY;
export const directorySetReadSchema = z.object({
  service_account_names: z.array(z.string()),
  ttl: z.number().int(),
  max_ttl: z.number().int(),
  disable_check_in_enforcement: z.boolean(),
});

export const directoryCheckOutBodySchema = z.object({ ttl: weakDuration() });
export const directoryCheckOutDataSchema = z.object({
  service_account_name: z.string(),
  password: z.string(),
});
export const directoryCheckInBodySchema = z.object({
  service_account_names: weakStringList({ default: [] }),
});
export const directoryCheckInDataSchema = z.object({ check_ins: z.array(z.string()) });
/** account name → { available, borrower_client_token?, borrower_entity_id? } (names are user keys). */
export const directoryStatusDataSchema = jsonObjectSchema;
