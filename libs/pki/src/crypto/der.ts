/**
 * The few raw DER reads the PKI engine needs that @peculiar/x509 keeps private: the signed part
 * of a CSR or certificate and its signature bits, to verify them with node:crypto.
 */
export interface Tlv {
  tag: number;
  /** offset of the tag byte */
  start: number;
  /** offset of the value */
  valueStart: number;
  /** offset after the value */
  end: number;
}

export function readTlv(buf: Uint8Array, offset: number): Tlv {
  const tag = buf[offset];
  let lenByte = buf[offset + 1];
  if (tag === undefined || lenByte === undefined) throw new Error('truncated DER');
  let pos = offset + 2;
  let length = lenByte;
  if (lenByte & 0x80) {
    const count = lenByte & 0x7f;
    if (count === 0 || count > 4) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < count; i++) {
      lenByte = buf[pos++];
      if (lenByte === undefined) throw new Error('truncated DER');
      length = length * 256 + lenByte;
    }
  }
  const end = pos + length;
  if (end > buf.length) throw new Error('truncated DER');
  return { tag, start: offset, valueStart: pos, end };
}

/** SEQUENCE { toBeSigned, AlgorithmIdentifier, BIT STRING }: the signed bytes and the signature. */
export function signedParts(der: Uint8Array): { tbs: Buffer; signature: Buffer } {
  const outer = readTlv(der, 0);
  if (outer.tag !== 0x30 || outer.end !== der.length) throw new Error('not a DER SEQUENCE');
  const tbs = readTlv(der, outer.valueStart);
  const alg = readTlv(der, tbs.end);
  const bits = readTlv(der, alg.end);
  if (bits.tag !== 0x03) throw new Error('no signature BIT STRING');
  return {
    tbs: Buffer.from(der.subarray(tbs.start, tbs.end)),
    // the first byte of a BIT STRING counts unused bits (0 for signatures)
    signature: Buffer.from(der.subarray(bits.valueStart + 1, bits.end)),
  };
}

/** One DER element: tag, definite length, content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let header: number[];
  if (n < 0x80) header = [tag, n];
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    header = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(header), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));

/** An OBJECT IDENTIFIER from its dotted form; undefined when the text is not one. */
export function oidDer(oid: string): Buffer | undefined {
  if (!/^[0-2](\.\d+)+$/.test(oid)) return undefined;
  const arcs = oid.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  if (first < 2 && second > 39) return undefined;
  const out: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    if (!Number.isSafeInteger(arc)) return undefined;
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));

/** A non-negative INTEGER. */
export function integerDer(value: bigint): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return tlv(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

/** The subjectPublicKey bits of a SubjectPublicKeyInfo (what a subject key id hashes). */
export function spkiKeyBits(spki: Uint8Array): Buffer {
  const outer = readTlv(spki, 0);
  const alg = readTlv(spki, outer.valueStart);
  const bits = readTlv(spki, alg.end);
  return Buffer.from(spki.subarray(bits.valueStart + 1, bits.end));
}

/** The elements inside a constructed DER value (a SEQUENCE's members, a SET's, …). */
export function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = parent.valueStart; pos < parent.end;) {
    const child = readTlv(buf, pos);
    out.push(child);
    pos = child.end;
  }
  return out;
}
