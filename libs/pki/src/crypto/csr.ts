import type { KeyObject } from 'node:crypto';
import { invalidRequest } from '@coffer/contracts';
import { children, readTlv, type Tlv } from './der';
import { emptySans, oidText, parseGeneralNames, type SanSet } from './general-names';
import { publicKeyFromSpki } from './keys';
import { pemBlocks } from './pem';
import { hasValidSignature } from './signatures';

/**
 * A CSR as the sign routes use it: checked signature, its key, subject and requested SANs. Read
 * with the engine's own DER reader (PKCS#10 is small; a general ASN.1 parser costs ~1 ms a CSR,
 * a tenth of what signing one may take).
 */
export interface ParsedCsr {
  /** the subject Name, DER (sign-verbatim writes it as it is) */
  subject: Buffer;
  commonName: string;
  subjectSerialNumber: string;
  spki: Buffer;
  publicKey: KeyObject;
  sans: SanSet;
  /** basicConstraints CA:TRUE requested */
  requestsCa: boolean;
}

const SIGNATURE_OIDS: Readonly<Record<string, { name: string; hash?: { name: string } }>> = {
  '1.2.840.113549.1.1.11': { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } },
  '1.2.840.113549.1.1.12': { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-384' } },
  '1.2.840.113549.1.1.13': { name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-512' } },
  '1.2.840.10045.4.3.2': { name: 'ECDSA', hash: { name: 'SHA-256' } },
  '1.2.840.10045.4.3.3': { name: 'ECDSA', hash: { name: 'SHA-384' } },
  '1.2.840.10045.4.3.4': { name: 'ECDSA', hash: { name: 'SHA-512' } },
  '1.3.101.112': { name: 'Ed25519' },
};

const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

function text(der: Buffer, t: Tlv): string {
  const value = der.subarray(t.valueStart, t.end);
  if (t.tag === 0x1e) return Buffer.from(value).swap16().toString('utf16le');
  return value.toString(t.tag === 0x0c ? 'utf8' : 'latin1');
}

/** First values of the subject attributes, by OID. */
function subjectValues(der: Buffer, name: Tlv): Map<string, string> {
  const out = new Map<string, string>();
  for (const rdn of children(der, name))
    for (const atv of children(der, rdn)) {
      const [type, value] = children(der, atv);
      if (!type || !value) continue;
      const oid = oidText(der.subarray(type.valueStart, type.end));
      if (!out.has(oid)) out.set(oid, text(der, value));
    }
  return out;
}

function extensionRequest(der: Buffer, attributes: Tlv | undefined): { sans: SanSet; requestsCa: boolean } {
  let sans = emptySans();
  let requestsCa = false;
  for (const attribute of attributes ? children(der, attributes) : []) {
    const [type, values] = children(der, attribute);
    if (!type || !values || oidText(der.subarray(type.valueStart, type.end)) !== OID_EXTENSION_REQUEST)
      continue;
    const [extensions] = children(der, values);
    for (const ext of extensions ? children(der, extensions) : []) {
      const parts = children(der, ext);
      const id = parts[0] ? oidText(der.subarray(parts[0].valueStart, parts[0].end)) : '';
      const octets = parts[parts.length - 1];
      if (!octets || octets.tag !== 0x04) continue;
      const value = der.subarray(octets.valueStart, octets.end);
      if (id === '2.5.29.17') sans = parseGeneralNames(value);
      if (id === '2.5.29.19') {
        const first = children(value, readTlv(value, 0))[0];
        requestsCa = first?.tag === 0x01 && value[first.valueStart] !== 0;
      }
    }
  }
  return { sans, requestsCa };
}

/** Parses and checks a PEM CSR; every failure is a 400 with Vault's wording where it has one. */
export function parseCsr(pem: string): ParsedCsr {
  if (pem.trim() === '') throw invalidRequest('"csr" is empty');
  const block = pemBlocks(pem)[0];
  if (!block) throw invalidRequest('csr contains no data');
  const der = block.der;
  let parsed: Omit<ParsedCsr, 'publicKey'> & { algorithm: string };
  try {
    const outer = readTlv(der, 0);
    const [info, alg] = children(der, outer);
    if (outer.tag !== 0x30 || outer.end !== der.length || !info || !alg)
      throw new Error('not a PKCS#10 request');
    const [version, subject, spki, attributes] = children(der, info);
    if (version?.tag !== 0x02 || subject?.tag !== 0x30 || spki?.tag !== 0x30)
      throw new Error('malformed request info');
    const [algOid] = children(der, alg);
    const values = subjectValues(der, subject);
    const extensions = extensionRequest(der, attributes?.tag === 0xa0 ? attributes : undefined);
    parsed = {
      subject: Buffer.from(der.subarray(subject.start, subject.end)),
      commonName: values.get('2.5.4.3') ?? '',
      subjectSerialNumber: values.get('2.5.4.5') ?? '',
      spki: Buffer.from(der.subarray(spki.start, spki.end)),
      algorithm: algOid ? oidText(der.subarray(algOid.valueStart, algOid.end)) : '',
      ...extensions,
    };
  } catch (error) {
    throw invalidRequest(`certificate request could not be parsed: ${(error as Error).message}`);
  }
  let publicKey: KeyObject;
  try {
    publicKey = publicKeyFromSpki(parsed.spki);
  } catch {
    throw invalidRequest("could not parse CSR's public key");
  }
  const algorithm = SIGNATURE_OIDS[parsed.algorithm];
  if (!algorithm)
    throw invalidRequest(`request signature invalid: unsupported signature algorithm ${parsed.algorithm}`);
  if (!hasValidSignature(der, algorithm, publicKey))
    throw invalidRequest('request signature invalid: the CSR is not signed by its own key');
  const { algorithm: _unused, ...csr } = parsed;
  return { ...csr, publicKey };
}
