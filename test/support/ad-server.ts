import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ldap from 'ldapjs';
import { freePort, makeTestCertificates } from '@coffer/testing';

/**
 * A small Active Directory stand-in built with the ldapjs server API: LDAPS with a test CA,
 * accounts found by userPrincipalName with pwdLastSet (100 ns ticks since 1601), and AD's
 * unicodePwd rules: the value must be the password in double quotes, UTF-16LE, and is only
 * accepted over TLS (the plain-LDAP listener refuses it with unwillingToPerform, as AD does).
 */
export interface AdServer {
  /** ldaps://127.0.0.1:<port> */
  url: string;
  /** ldap://127.0.0.1:<port>, same directory, no TLS */
  plainUrl: string;
  /** PEM of the test CA that signed the server certificate */
  ca: string;
  binddn: string;
  bindpass: string;
  userdn: string;
  dnOf(upn: string): string;
  /** whether the account's password is `password` right now */
  hasPassword(upn: string, password: string): boolean;
  /** unicodePwd writes the server accepted */
  passwordWrites: number;
  stop(): Promise<void>;
}

interface Account {
  dn: string;
  upn: string;
  password: string;
  pwdLastSet: string;
}

const EPOCH_DIFF_MS = 11_644_473_600_000n;
const ticksNow = (): string => ((BigInt(Date.now()) + EPOCH_DIFF_MS) * 10_000n).toString();

export async function startAdServer(upns: readonly string[]): Promise<AdServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'coffer-ad-'));
  const { ca, cert, key } = makeTestCertificates(dir);
  const suffix = 'dc=corp,dc=test';
  const userdn = `ou=users,${suffix}`;
  const binddn = `cn=coffer-admin,${suffix}`;
  const accounts = new Map<string, Account>();
  const add = (dn: string, upn: string, password: string) =>
    accounts.set(dn.toLowerCase(), { dn, upn, password, pwdLastSet: ticksNow() });
  add(binddn, 'coffer-admin@corp.test', 'initial-admin-password');
  for (const upn of upns) add(`cn=${upn.split('@')[0]},${userdn}`, upn, `initial-${upn}`);
  const stats = { passwordWrites: 0 };

  const serve = (server: ldap.Server, tls: boolean) => {
    server.bind(suffix, (req: any, res: any, next: any) => {
      const account = accounts.get(String(req.dn).toLowerCase().replace(/\s+/g, ''));
      if (!account || account.password !== req.credentials) return next(new ldap.InvalidCredentialsError());
      res.end();
      return next();
    });
    server.search(suffix, (req: any, res: any, next: any) => {
      const base = String(req.dn).toLowerCase().replace(/\s+/g, '');
      // requested attribute names match case-insensitively (ldapjs compares them as sent)
      res.attributes = (res.attributes as string[]).map((a) => a.toLowerCase());
      for (const account of accounts.values()) {
        const dn = account.dn.toLowerCase();
        const inScope = req.scope === 'base' ? dn === base : dn === base || dn.endsWith(`,${base}`);
        const attributes = {
          objectClass: ['user'],
          userPrincipalName: account.upn,
          pwdLastSet: account.pwdLastSet,
          cn: account.dn.split(',')[0]!.slice(3),
        };
        if (inScope && req.filter.matches(attributes)) res.send({ dn: account.dn, attributes });
      }
      res.end();
      return next();
    });
    server.modify(suffix, (req: any, res: any, next: any) => {
      const account = accounts.get(String(req.dn).toLowerCase().replace(/\s+/g, ''));
      if (!account) return next(new ldap.NoSuchObjectError(String(req.dn)));
      for (const change of req.changes) {
        const attribute = change.modification;
        if (String(attribute.type).toLowerCase() !== 'unicodepwd')
          return next(new ldap.UnwillingToPerformError('only unicodePwd'));
        if (!tls)
          return next(
            new ldap.UnwillingToPerformError(
              '0000001F: SvcErr: DSID-031A12D2, problem 5003 (WILL_NOT_PERFORM)',
            ),
          );
        const raw: Buffer | undefined = attribute.buffers[0];
        const text = raw ? raw.toString('utf16le') : '';
        const wellFormed =
          raw !== undefined &&
          raw.length % 2 === 0 &&
          text.length >= 2 &&
          text.startsWith('"') &&
          text.endsWith('"');
        if (!wellFormed)
          return next(
            new ldap.ConstraintViolationError('0000052D: unicodePwd must be a quoted UTF-16LE string'),
          );
        account.password = text.slice(1, -1);
        account.pwdLastSet = ticksNow();
        stats.passwordWrites++;
      }
      res.end();
      return next();
    });
  };
  const secure = ldap.createServer({ certificate: cert, key });
  const plain = ldap.createServer();
  serve(secure, true);
  serve(plain, false);
  const port = await freePort();
  const plainPort = await freePort();
  await new Promise<void>((resolve) => secure.listen(port, '127.0.0.1', () => resolve()));
  await new Promise<void>((resolve) => plain.listen(plainPort, '127.0.0.1', () => resolve()));
  return {
    url: `ldaps://127.0.0.1:${port}`,
    plainUrl: `ldap://127.0.0.1:${plainPort}`,
    ca,
    binddn,
    bindpass: 'initial-admin-password',
    userdn,
    dnOf: (upn) => `cn=${upn.split('@')[0]},${userdn}`,
    hasPassword: (upn, password) =>
      [...accounts.values()].some((a) => a.upn === upn && a.password === password),
    get passwordWrites() {
      return stats.passwordWrites;
    },
    stop: async () => {
      secure.close(() => undefined);
      plain.close(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
