import { isIPv4, isIPv6 } from 'node:net';
import { children, oidDer, readTlv, sequence, tlv, utf8String } from './der';

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
    text = text.replace(
      v4[1],
      `${(((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16)}:${(((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16)}`,
    );
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

/** The text of an iPAddress name's bytes. */
export function ipText(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  const groups: string[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups
    .join(':')
    .replace(/(^|:)0(:0)+(:|$)/, '::')
    .replace(/:{3,}/, '::');
}

/** The names of a SubjectAltName extension value (GeneralNames DER); other kinds are ignored. */
export function parseGeneralNames(der: Uint8Array): SanSet {
  const sans = emptySans();
  const top = readTlv(der, 0);
  for (const item of children(der, top)) {
    const value = Buffer.from(der.subarray(item.valueStart, item.end));
    switch (item.tag) {
      case 0x82:
        sans.dns.push(value.toString('latin1'));
        break;
      case 0x81:
        sans.email.push(value.toString('utf8'));
        break;
      case 0x86:
        sans.uri.push(value.toString('utf8'));
        break;
      case 0x87:
        sans.ip.push(ipText(value));
        break;
      case 0xa0: {
        const [oid, wrapped] = children(der, item);
        if (!oid || !wrapped || oid.tag !== 0x06 || wrapped.tag !== 0xa0) break;
        const [inner] = children(der, wrapped);
        if (inner?.tag !== 0x0c) throw new Error('no UTF-8 string found in OtherName');
        const text = Buffer.from(der.subarray(inner.valueStart, inner.end)).toString('utf8');
        sans.other.push({ oid: oidText(der.subarray(oid.valueStart, oid.end)), value: text });
        break;
      }
    }
  }
  return sans;
}

/** Dotted text of an OBJECT IDENTIFIER's content bytes. */
export function oidText(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const [first = 0, ...rest] = arcs;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...rest].join('.');
}
