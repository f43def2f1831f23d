import { isIPv4, isIPv6 } from 'node:net';
import { oidDer, sequence, tlv, utf8String } from './der';

/** Subject alternative names of a certificate, by kind (what Vault's CreationParameters carry). */
export interface SanSet {
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
  /** other names: UTF-8 values under an OID */
  other: { oid: string; value: string }[];
}

export const emptySans = (): SanSet => ({ dns: [], email: [], ip: [], uri: [], other: [] });
export const hasSans = (s: SanSet): boolean =>
  s.dns.length + s.email.length + s.ip.length + s.uri.length + s.other.length > 0;

/** An IP address as the 4 or 16 bytes of an iPAddress name; undefined when it is not one. */
export function ipBytes(ip: string): Buffer | undefined {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) return undefined;
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const b = v4[1].split('.').map(Number);
    text = text.replace(v4[1], `${(((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16)}:${(((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16)}`);
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** GeneralNames DER (RFC 5280 4.2.1.6): other names first, as Vault's handleOtherSANs orders them. */
export function generalNamesDer(sans: SanSet): Buffer {
  const items: Buffer[] = [];
  for (const o of sans.other) {
    const oid = oidDer(o.oid);
    if (!oid) throw new Error(`bad other SAN OID ${o.oid}`);
    items.push(tlv(0xa0, Buffer.concat([oid, tlv(0xa0, utf8String(o.value))])));
  }
  for (const d of sans.dns) items.push(tlv(0x82, Buffer.from(d, 'ascii')));
  for (const e of sans.email) items.push(tlv(0x81, Buffer.from(e, 'utf8')));
  for (const ip of sans.ip) {
    const bytes = ipBytes(ip);
    if (!bytes) throw new Error(`bad IP SAN ${ip}`);
    items.push(tlv(0x87, bytes));
  }
  for (const u of sans.uri) items.push(tlv(0x86, Buffer.from(u, 'utf8')));
  return sequence(...items);
}

/** NameConstraints with permitted DNS subtrees (permitted_dns_domains of a CA). */
export const nameConstraintsDer = (domains: string[]): Buffer =>
  sequence(tlv(0xa0, Buffer.concat(domains.map((d) => sequence(tlv(0x82, Buffer.from(d, 'ascii')))))));
