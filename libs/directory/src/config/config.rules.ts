import { X509Certificate } from 'node:crypto';
import {
  SYSTEM_DEFAULT_LEASE_TTL,
  SYSTEM_MAX_LEASE_TTL,
  invalidRequest,
  type MountInfo,
} from '@coffer/contracts';
import {
  TLS_VERSIONS,
  type directoryConfigBodySchema,
  type directoryConfigReadSchema,
} from '@coffer/contracts/directory';
import type { z } from 'zod';
import type { ConnectionSettings, PasswordSettings } from '../records/record.events';
import type { ConfigState } from '../records/record.state';
import { DEFAULT_PASSWORD_LENGTH, passwordRulesProblem } from '../passwords/password-generator';

type ConfigBody = z.output<typeof directoryConfigBodySchema>;

const DEFAULT_USERATTR = { ad: 'userPrincipalName', openldap: 'cn' } as const;

/**
 * A config write merged over the stored config (fields not sent keep their value, as Vault's
 * ldaputil.NewConfigEntry) and validated with Vault's texts. Password settings are rebuilt by
 * every write, as the AD engine does. Throws a 400 for bad input; pure.
 */
export function mergeConfig(
  body: ConfigBody,
  existing: ConfigState | undefined,
  mount: MountInfo,
): { connection: ConnectionSettings; passwords: PasswordSettings; bindpass: string | undefined } {
  const old = existing?.connection;
  const schema = body.schema ?? old?.schema ?? 'ad';
  if (schema !== 'ad' && schema !== 'openldap') throw invalidRequest('schema must be "ad" or "openldap"');
  const userattr = body.userattr ?? (old && old.schema === schema ? old.userattr : DEFAULT_USERATTR[schema]);
  const connection: ConnectionSettings = {
    url: (body.url ?? old?.url ?? 'ldap://127.0.0.1').toLowerCase(),
    binddn: body.binddn ?? old?.binddn ?? '',
    userdn: body.userdn ?? old?.userdn ?? '',
    upndomain: body.upndomain ?? old?.upndomain ?? '',
    userattr,
    schema,
    certificate: body.certificate ?? old?.certificate ?? '',
    insecure_tls: body.insecure_tls ?? old?.insecure_tls ?? false,
    starttls: body.starttls ?? old?.starttls ?? false,
    tls_min_version: body.tls_min_version ?? old?.tls_min_version ?? 'tls12',
    tls_max_version: body.tls_max_version ?? old?.tls_max_version ?? 'tls12',
    request_timeout: body.request_timeout ?? old?.request_timeout ?? 90,
    connection_timeout: body.connection_timeout ?? old?.connection_timeout ?? 30,
    case_sensitive_names: body.case_sensitive_names ?? old?.case_sensitive_names ?? false,
  };
  const bindpass = body.bindpass;
  validateConnection(connection, bindpass ?? existing?.password.current ?? '');

  const password_policy = body.password_policy ?? '';
  const length = body.length ?? (password_policy === '' ? DEFAULT_PASSWORD_LENGTH : 0);
  let ttl = body.ttl ?? 0;
  let max_ttl = body.max_ttl ?? 0;
  if (ttl === 0) ttl = mount.config.default_lease_ttl || SYSTEM_DEFAULT_LEASE_TTL;
  if (max_ttl === 0) max_ttl = mount.config.max_lease_ttl || SYSTEM_MAX_LEASE_TTL;
  if (ttl > max_ttl) throw invalidRequest('ttl must be smaller than or equal to max_ttl');
  if (ttl < 1) throw invalidRequest('ttl must be positive');
  if (max_ttl < 1) throw invalidRequest('max_ttl must be positive');
  const passwords: PasswordSettings = {
    ttl,
    max_ttl,
    length,
    formatter: body.formatter ?? '',
    password_policy,
    last_rotation_tolerance: body.last_rotation_tolerance ?? 5,
  };
  const problem = passwordRulesProblem(passwords);
  if (problem) throw invalidRequest(problem);
  return { connection, passwords, bindpass };
}

function validateConnection(c: ConnectionSettings, bindpass: string): void {
  if (c.url.split(',').every((u) => u.trim() === ''))
    throw invalidRequest('at least one url must be provided');
  for (const raw of c.url.split(',')) {
    const u = raw.trim();
    if (!/^ldaps?:\/\/[^/\s]+\/?$/.test(u))
      throw invalidRequest(`invalid LDAP url "${u}": ldap:// or ldaps://host[:port]`);
  }
  if (c.binddn === '') throw invalidRequest('"binddn" is required');
  if (bindpass === '') throw invalidRequest('"bindpass" is required');
  const versions: readonly string[] = TLS_VERSIONS;
  if (!versions.includes(c.tls_min_version)) throw invalidRequest("invalid 'tls_min_version'");
  if (!versions.includes(c.tls_max_version)) throw invalidRequest("invalid 'tls_max_version'");
  if (c.tls_max_version < c.tls_min_version)
    throw invalidRequest("'tls_max_version' must be greater than or equal to 'tls_min_version'");
  if (c.request_timeout < 1) throw invalidRequest('request_timeout must be positive');
  if (c.connection_timeout < 1) throw invalidRequest('connection_timeout must be positive');
  if (c.certificate !== '') {
    if (!/-----BEGIN CERTIFICATE-----/.test(c.certificate))
      throw invalidRequest('failed to parse server tls cert: failed to decode PEM block in the certificate');
    try {
      new X509Certificate(c.certificate);
    } catch (error) {
      throw invalidRequest(
        `failed to parse server tls cert: failed to parse certificate ${error instanceof Error ? error.message : ''}`,
      );
    }
  }
}

/** The config as its read answers it (the live read and its history): never the bind password. */
export function directoryConfigView(config: ConfigState): z.output<typeof directoryConfigReadSchema> {
  const { connection, passwords, password } = config;
  return {
    ...connection,
    ...passwords,
    ...(password.last_rotation ? { last_bind_password_rotation: password.last_rotation } : {}),
  };
}
