import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, InvalidCredentialsError } from 'ldapts';
import { freePort } from './net';
import { makeTestCertificates } from './test-ca';
import { waitFor } from './wait';

/**
 * A throwaway OpenLDAP: `slapd` started unprivileged on a loopback port with an mdb database in a
 * temp dir, a DIT loaded by `slapadd`: `cn=coffer,ou=system,<suffix>` (the engine's bind account,
 * allowed to set any password) and the service accounts `cn=<name>,ou=people,<suffix>`.
 */
export interface Slapd {
  url: string;
  /** ldaps:// listener (the same directory), its certificate signed by `ca` */
  ldapsUrl: string;
  /** PEM of the test CA (StartTLS on `url` and LDAPS on `ldapsUrl` present its certificate) */
  ca: string;
  suffix: string;
  binddn: string;
  bindpass: string;
  userdn: string;
  /** true when `dn` binds with `password` (false on invalid credentials) */
  binds(dn: string, password: string): Promise<boolean>;
  /** the DN of a service account */
  dnOf(name: string): string;
  /** adds service accounts at run time (as the directory admin) */
  addAccounts(names: readonly string[]): Promise<void>;
  /** stops and starts slapd again on the same port (for "directory down" cases) */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';

export async function startSlapd(accounts: readonly string[]): Promise<Slapd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'coffer-slapd-'));
  const data = path.join(dir, 'data');
  mkdirSync(data);
  const suffix = 'dc=coffer,dc=test';
  const rootdn = `cn=admin,${suffix}`;
  const rootpw = 'admin-secret-not-used-by-coffer';
  const binddn = `cn=coffer,ou=system,${suffix}`;
  const bindpass = 'initial-bind-password';
  const userdn = `ou=people,${suffix}`;
  const tls = makeTestCertificates(dir);
  const conf = path.join(dir, 'slapd.conf');
  writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${path.join(dir, 'slapd.pid')}`,
      `argsfile ${path.join(dir, 'slapd.args')}`,
      `TLSCACertificateFile ${tls.caFile}`,
      `TLSCertificateFile ${tls.certFile}`,
      `TLSCertificateKeyFile ${tls.keyFile}`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${suffix}"`,
      `rootdn "${rootdn}"`,
      `rootpw ${rootpw}`,
      `directory ${data}`,
      `access to attrs=userPassword by dn.exact="${binddn}" write by self write by anonymous auth by * none`,
      `access to * by dn.exact="${binddn}" write by * read`,
      '',
    ].join('\n'),
  );
  const entry = (name: string) =>
    `dn: cn=${name},${userdn}\nobjectClass: inetOrgPerson\ncn: ${name}\nsn: ${name}\nuserPassword: initial-${name}\n`;
  const ldif = [
    `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\no: coffer\ndc: coffer\n`,
    `dn: ou=system,${suffix}\nobjectClass: organizationalUnit\nou: system\n`,
    `dn: ${userdn}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ${binddn}\nobjectClass: inetOrgPerson\ncn: coffer\nsn: coffer\nuserPassword: ${bindpass}\n`,
    ...accounts.map(entry),
  ].join('\n');
  writeFileSync(path.join(dir, 'dit.ldif'), ldif);
  const added = spawnSync(SLAPADD, ['-f', conf, '-l', path.join(dir, 'dit.ldif')], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`slapadd failed: ${added.stderr}`);

  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${await freePort()}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(SLAPD, ['-d', '0', '-h', `${url}/ ${ldapsUrl}/`, '-f', conf], { stdio: 'ignore' });
    // reachable is enough: rotate-root may have changed the bind password
    await waitFor(() => binds(url, binddn, bindpass).then(() => true), {
      timeoutMs: 15_000,
      intervalMs: 100,
      message: 'slapd did not start',
    });
  };
  const halt = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url,
    ldapsUrl,
    ca: tls.ca,
    suffix,
    binddn,
    bindpass,
    userdn,
    dnOf: (name) => `cn=${name},${userdn}`,
    binds: (dn, password) => binds(url, dn, password),
    addAccounts: async (names) => {
      const client = new Client({ url });
      try {
        await client.bind(rootdn, rootpw);
        for (const name of names)
          await client.add(`cn=${name},${userdn}`, {
            objectClass: 'inetOrgPerson',
            cn: name,
            sn: name,
            userPassword: `initial-${name}`,
          });
      } finally {
        await client.unbind();
      }
    },
    pause: halt,
    resume: start,
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a simple bind succeeds; throws when the server cannot be reached. */
export async function binds(url: string, dn: string, password: string, tlsCa?: string): Promise<boolean> {
  const client = new Client({
    url,
    timeout: 5_000,
    connectTimeout: 5_000,
    ...(tlsCa ? { tlsOptions: { ca: [tlsCa] } } : {}),
  });
  try {
    await client.bind(dn, password);
    return true;
  } catch (error) {
    if (error instanceof InvalidCredentialsError) return false;
    throw error;
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
