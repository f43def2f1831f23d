import { randomBytes } from 'node:crypto';

/** PEM blocks and serial numbers as Vault writes them. */

export interface PemBlock {
  label: string;
  der: Buffer;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Every PEM block of a text, in order (an empty list when there is none). */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const body = (m[2] ?? '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue;
    out.push({ label: m[1] ?? '', der: Buffer.from(body, 'base64') });
  }
  return out;
}

export function toPem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`;
}

export const certificatePem = (der: Uint8Array): string => toPem('CERTIFICATE', der);
/** Vault (Go's pem package) labels CRLs "X509 CRL". */
export const crlPem = (der: Uint8Array): string => toPem('X509 CRL', der);

/** "39:dd:2e:…": lowercase hex bytes joined by colons, as Vault prints serials. */
export function colonSerial(hex: string): string {
  const even = hex.length % 2 === 1 ? `0${hex}` : hex;
  return (even.toLowerCase().match(/../g) ?? []).join(':');
}

/**
 * A serial from a request ("39-dd-…", "39:DD:…"): the colon form, or undefined when it is not
 * hex bytes separated by colons or hyphens.
 */
export function normalizeSerial(input: string): string | undefined {
  const text = input.trim().toLowerCase().replace(/-/g, ':');
  if (!/^[0-9a-f]{1,2}(:[0-9a-f]{1,2})*$/.test(text)) return undefined;
  return text
    .split(':')
    .map((b) => b.padStart(2, '0'))
    .join(':');
}

/** A fresh positive 159-bit serial (Vault's certutil.GenerateSerialNumber), as hex. */
export function newSerialHex(): string {
  const bytes = randomBytes(20);
  // Positive, and no leading zero byte (DER would drop it and the stored form would differ).
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 0x01;
  return bytes.toString('hex');
}

/** Serial hex as a DER INTEGER carries it (no sign padding), lowercase. */
export const plainSerialHex = (hex: string): string => hex.toLowerCase().replace(/^(00)+(?=[0-9a-f])/, '');
