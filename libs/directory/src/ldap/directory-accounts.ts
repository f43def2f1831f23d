import { Attribute, Change, type Client, type Entry } from 'ldapts';
import { DomainError, invalidRequest } from '@coffer/contracts';
import type { ConnectionSettings } from '../records/record.events';

/** What the engine needs of a directory account. */
export interface DirectoryAccount {
  dn: string;
  /** when the directory says the password was last set (null: not known) */
  passwordLastSet: Date | null;
}

const LAST_SET_ATTRIBUTES = ['pwdLastSet', 'pwdChangedTime'];

/** RFC 4515 filter value escaping. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** pwdLastSet: 100 ns ticks since 1601-01-01 UTC ("0": never set). */
export function ticksToDate(ticks: string): Date | null {
  if (!/^\d+$/.test(ticks) || ticks === '0') return null;
  const ms = BigInt(ticks) / 10_000n - 11_644_473_600_000n;
  return new Date(Number(ms));
}

/** pwdChangedTime: LDAP GeneralizedTime, e.g. 20260101120000Z or 20260101120000.123Z. */
export function generalizedTimeToDate(value: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:[.,](\d+))?Z$/.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  return new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
}

/** The first value of an attribute (attribute names are case-insensitive in LDAP). */
function first(entry: Entry, name: string): string | undefined {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : entry[key];
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined ? undefined : v.toString();
}

function lastSet(settings: ConnectionSettings, entry: Entry): Date | null {
  if (settings.schema === 'ad') {
    const ticks = first(entry, 'pwdLastSet');
    return ticks === undefined ? null : ticksToDate(ticks);
  }
  const changed = first(entry, 'pwdChangedTime');
  return changed === undefined ? null : generalizedTimeToDate(changed);
}

/** The one account named `name` under userdn (by userattr), or a 400 naming what is wrong. */
export async function findAccount(
  client: Client,
  settings: ConnectionSettings,
  name: string,
): Promise<DirectoryAccount> {
  const { searchEntries } = await client.search(settings.userdn, {
    scope: 'sub',
    filter: `(${settings.userattr}=${escapeFilterValue(name)})`,
    attributes: LAST_SET_ATTRIBUTES,
  });
  if (searchEntries.length === 0)
    throw invalidRequest(
      `unable to find service account named ${name} in the directory, searches are case sensitive`,
    );
  if (searchEntries.length > 1)
    throw invalidRequest(
      `expected one matching service account named ${name}, but found ${searchEntries.length}`,
    );
  const entry = searchEntries[0] as Entry;
  return { dn: entry.dn, passwordLastSet: lastSet(settings, entry) };
}

/** The bind DN's own entry: exactly one (rotate-root refuses otherwise). */
export async function findBindEntry(client: Client, settings: ConnectionSettings): Promise<string> {
  const { searchEntries } = await client.search(settings.binddn, {
    scope: 'base',
    filter: '(objectClass=*)',
    attributes: ['dn'],
  });
  if (searchEntries.length !== 1)
    throw new DomainError(
      'invalid_request',
      `the binddn ${settings.binddn} does not match exactly one entry`,
    );
  return (searchEntries[0] as Entry).dn;
}

/** AD's unicodePwd value: the password in double quotes, UTF-16LE. */
export function unicodePwd(password: string): Buffer {
  return Buffer.from(`"${password}"`, 'utf16le');
}

/** Replaces the account's password: unicodePwd (ad, needs TLS) or userPassword (openldap). */
export async function setPassword(
  client: Client,
  settings: ConnectionSettings,
  dn: string,
  password: string,
): Promise<void> {
  const modification =
    settings.schema === 'ad'
      ? new Attribute({ type: 'unicodePwd', values: [unicodePwd(password)] })
      : new Attribute({ type: 'userPassword', values: [password] });
  await client.modify(dn, new Change({ operation: 'replace', modification }));
}
