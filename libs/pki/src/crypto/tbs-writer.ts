import { createHash, sign } from 'node:crypto';
import { integerDer, oidDer, sequence, spkiKeyBits, tlv } from './der';
import { generalNamesDer, hasSans, nameConstraintsDer, type SanSet } from './general-names';
import type { NodeSigningKey } from './node-signer';

/**
 * The hot path of issuing: a certificate's DER written directly. @peculiar/x509's generator
 * re-parses every extension and the finished certificate (~3 ms a certificate, measured), which
 * alone would cap issuance near 300/s per core; here the TBS is concatenated from parts and
 * signed once with node:crypto (~0.3 ms for EC P-256).
 */

const HEX = (s: string) => Buffer.from(s, 'hex');
const TRUE = HEX('0101ff');
/** DER of the OIDs written per certificate (extensions, usages, name attributes), made once each. */
const oidDers = new Map<string, Buffer>();
/** The DER of an OID Coffer writes; shared: concatenate it, never change it. */
export const oid = (dotted: string): Buffer => {
  let der = oidDers.get(dotted);
  if (der) return der;
  der = oidDer(dotted);
  if (!der) throw new Error(`pki: bad OID ${dotted}`);
  // role-supplied OIDs (policies, usages) are few per mount; a bound keeps odd input from growing it
  if (oidDers.size < 1000) oidDers.set(dotted, der);
  return der;
};

/** DER AlgorithmIdentifiers of the signatures Coffer makes (RSA-PSS has its own path). */
export const SIGNATURE_ALGORITHMS: Readonly<Record<string, Buffer>> = {
  'RSASSA-PKCS1-v1_5/SHA-256': HEX('300d06092a864886f70d01010b0500'),
  'RSASSA-PKCS1-v1_5/SHA-384': HEX('300d06092a864886f70d01010c0500'),
  'RSASSA-PKCS1-v1_5/SHA-512': HEX('300d06092a864886f70d01010d0500'),
  'ECDSA/SHA-256': HEX('300a06082a8648ce3d040302'),
  'ECDSA/SHA-384': HEX('300a06082a8648ce3d040303'),
  'ECDSA/SHA-512': HEX('300a06082a8648ce3d040304'),
  'Ed25519/': HEX('300506032b6570'),
};

export function signatureAlgorithmDer(signer: NodeSigningKey): Buffer | undefined {
  const alg = signer.algorithm;
  const hash = 'hash' in alg ? alg.hash.name : '';
  return SIGNATURE_ALGORITHMS[`${alg.name}/${hash}`];
}

/** Signs `tbs` and wraps it: SEQUENCE { tbs, algorithm, BIT STRING signature }. */
export function signDer(tbs: Buffer, algorithm: Buffer, signer: NodeSigningKey): Buffer {
  const alg = signer.algorithm;
  const hash = 'hash' in alg ? alg.hash.name.replace('-', '').toLowerCase() : null;
  const signature = sign(hash, tbs, signer.keyObject);
  return sequence(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
export function timeDer(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2)))
    : tlv(0x18, Buffer.from(digits));
}

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  sequence(oid(id), ...(critical ? [TRUE] : []), tlv(0x04, value));

/** KeyUsage flags (bit 0 = digitalSignature) as a minimal DER BIT STRING. */
export function keyUsageDer(flags: number): Buffer {
  const bytes = [flags & 0xff, (flags >> 8) & 0xff].map((b) => {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 0x80 >> i;
    return r;
  });
  while (bytes.length > 1 && bytes[bytes.length - 1] === 0) bytes.pop();
  const last = bytes[bytes.length - 1] ?? 0;
  let unused = 0;
  while (unused < 7 && last !== 0 && !(last & (1 << unused))) unused++;
  return tlv(0x03, Buffer.from([last === 0 ? 0 : unused, ...bytes]));
}

export interface ExtensionParts {
  isCa: boolean;
  maxPathLength: number;
  basicConstraintsValidForNonCa: boolean;
  keyUsage: number;
  extKeyUsage: string[];
  subjectKeyId: Buffer;
  authorityKeyId: Buffer;
  issuingUrls: string[];
  ocspServers: string[];
  crlDistributionPoints: string[];
  sans: SanSet;
  sansCritical: boolean;
  policyOids: string[];
  permittedDnsDomains: string[];
}

const uri = (u: string): Buffer => tlv(0x86, Buffer.from(u, 'utf8'));

export function extensionsDer(p: ExtensionParts): Buffer[] {
  const out: Buffer[] = [];
  if (p.isCa) {
    const path = p.maxPathLength >= 0 ? [integerDer(BigInt(p.maxPathLength))] : [];
    out.push(extension('2.5.29.19', true, sequence(TRUE, ...path)));
  } else if (p.basicConstraintsValidForNonCa) out.push(extension('2.5.29.19', true, sequence()));
  if (p.keyUsage !== 0) out.push(extension('2.5.29.15', true, keyUsageDer(p.keyUsage)));
  if (p.extKeyUsage.length > 0) out.push(extension('2.5.29.37', false, sequence(...p.extKeyUsage.map(oid))));
  out.push(extension('2.5.29.14', false, tlv(0x04, p.subjectKeyId)));
  out.push(extension('2.5.29.35', false, sequence(tlv(0x80, p.authorityKeyId))));
  const access = [
    ...p.ocspServers.map((u) => sequence(oid('1.3.6.1.5.5.7.48.1'), uri(u))),
    ...p.issuingUrls.map((u) => sequence(oid('1.3.6.1.5.5.7.48.2'), uri(u))),
  ];
  if (access.length > 0) out.push(extension('1.3.6.1.5.5.7.1.1', false, sequence(...access)));
  if (p.crlDistributionPoints.length > 0) {
    const points = p.crlDistributionPoints.map((u) => sequence(tlv(0xa0, tlv(0xa0, uri(u)))));
    out.push(extension('2.5.29.31', false, sequence(...points)));
  }
  if (hasSans(p.sans)) out.push(extension('2.5.29.17', p.sansCritical, generalNamesDer(p.sans)));
  if (p.policyOids.length > 0)
    out.push(extension('2.5.29.32', false, sequence(...p.policyOids.map((o) => sequence(oid(o))))));
  if (p.isCa && p.permittedDnsDomains.length > 0)
    out.push(extension('2.5.29.30', true, nameConstraintsDer(p.permittedDnsDomains)));
  return out;
}

export const keyIdOf = (spki: Buffer): Buffer => createHash('sha1').update(spkiKeyBits(spki)).digest();

export interface TbsParts {
  serialHex: string;
  algorithm: Buffer;
  issuer: Buffer;
  notBefore: Date;
  notAfter: Date;
  subject: Buffer;
  spki: Buffer;
  extensions: Buffer[];
}

export function tbsDer(t: TbsParts): Buffer {
  return sequence(
    HEX('a003020102'),
    integerDer(BigInt(`0x${t.serialHex}`)),
    t.algorithm,
    t.issuer,
    sequence(timeDer(t.notBefore), timeDer(t.notAfter)),
    t.subject,
    t.spki,
    tlv(0xa3, sequence(...t.extensions)),
  );
}
