import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, ResultCodeError } from 'ldapts';
import { DomainError } from '@coffer/contracts';
import type { ConnectionSettings } from '../records/record.events';

/**
 * A failed directory call (502). `applied` says whether a write may have reached the directory:
 * 'no' when it was refused or never sent, 'unknown' after a time-out or a dropped connection.
 */
export class DirectoryError extends DomainError {
  constructor(
    message: string,
    readonly applied: 'no' | 'unknown',
  ) {
    super('upstream_error', message);
  }
}

const TLS_NAMES: Record<string, ConnectionOptions['minVersion']> = {
  tls10: 'TLSv1',
  tls11: 'TLSv1.1',
  tls12: 'TLSv1.2',
  tls13: 'TLSv1.3',
};

function tlsOptions(settings: ConnectionSettings, host: string): ConnectionOptions {
  return {
    servername: host,
    rejectUnauthorized: !settings.insecure_tls,
    ...(settings.certificate !== '' ? { ca: [settings.certificate] } : {}),
    minVersion: TLS_NAMES[settings.tls_min_version] ?? 'TLSv1.2',
    maxVersion: TLS_NAMES[settings.tls_max_version] ?? 'TLSv1.2',
  };
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : 'unknown error');

/** The bind identity: binddn (or binddn@upndomain) and the passwords to try in order. */
export interface BindIdentity {
  dn: string;
  passwords: readonly string[];
}

export function bindIdentity(settings: ConnectionSettings, passwords: readonly string[]): BindIdentity {
  const dn = settings.upndomain !== '' ? `${settings.binddn}@${settings.upndomain}` : settings.binddn;
  return { dn, passwords };
}

/** Binds with the first password that works; InvalidCredentials with all of them is a 502 with LDAP's text. */
async function bind(client: Client, identity: BindIdentity): Promise<void> {
  let refusal: unknown;
  for (const password of identity.passwords) {
    try {
      await client.bind(identity.dn, password);
      return;
    } catch (error) {
      if (!(error instanceof InvalidCredentialsError)) throw error;
      refusal = error;
    }
  }
  throw new DirectoryError(`the directory refused the bind as ${identity.dn}: ${reason(refusal)}`, 'no');
}

/**
 * Runs `work` on a connection bound as `identity`: the URLs of `settings.url` are tried in order
 * while connecting fails (refused, unreachable, TLS, no answer within request_timeout); every
 * call has request_timeout. Failures are DirectoryErrors (502) that name the directory's reason.
 */
export async function withDirectory<T>(
  settings: ConnectionSettings,
  identity: BindIdentity,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const failures: string[] = [];
  for (const raw of settings.url
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      failures.push(`error parsing url "${raw}"`);
      continue;
    }
    if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') {
      failures.push(`invalid LDAP scheme in url "${raw}"`);
      continue;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const client = new Client({
      url: `${url.protocol}//${url.host}`,
      timeout: settings.request_timeout * 1000,
      connectTimeout: Math.min(settings.connection_timeout, settings.request_timeout) * 1000,
      ...(url.protocol === 'ldaps:' ? { tlsOptions: tlsOptions(settings, host) } : {}),
      strictDN: false,
    });
    try {
      try {
        if (url.protocol === 'ldap:' && settings.starttls) await client.startTLS(tlsOptions(settings, host));
        await bind(client, identity);
      } catch (error) {
        if (error instanceof DirectoryError) throw error;
        failures.push(`error connecting to host "${raw}": ${reason(error)}`);
        continue;
      }
      try {
        return await work(client);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (error instanceof ResultCodeError)
          throw new DirectoryError(`the directory refused the request: ${reason(error)}`, 'no');
        throw new DirectoryError(
          `the directory did not complete the request within request_timeout (${settings.request_timeout}s): ${reason(error)}`,
          'unknown',
        );
      }
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
  throw new DirectoryError(
    `could not reach the directory: ${failures.join('; ') || 'no url configured'}`,
    'no',
  );
}
