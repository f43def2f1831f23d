import type { JsonWebKey } from 'node:crypto';
import { children, readTlv, type Tlv } from './der';

// OID contents (DER, hex) of the key algorithms and curves read here
const OID_RSA = '2a864886f70d010101';
const OID_EC = '2a8648ce3d0201';
const OID_ED25519 = '2b6570';
const CURVES: Readonly<Record<string, { crv: string; size: number }>> = {
  '2a8648ce3d030107': { crv: 'P-256', size: 32 },
  '2b81040022': { crv: 'P-384', size: 48 },
  '2b81040023': { crv: 'P-521', size: 66 },
};

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

/** A positive, minimally encoded DER INTEGER's magnitude; undefined for anything else. */
function unsignedInteger(der: Uint8Array, t: Tlv | undefined): Uint8Array | undefined {
  if (!t || t.tag !== 0x02 || t.end <= t.valueStart) return undefined;
  const value = der.subarray(t.valueStart, t.end);
  const [first = 0, second = 0] = value;
  if (first & 0x80) return undefined;
  if (first === 0) return value.length > 1 && second & 0x80 ? value.subarray(1) : undefined;
  return value;
}

function rsaJwk(key: Uint8Array): JsonWebKey | undefined {
  const seq = readTlv(key, 0);
  if (seq.tag !== 0x30 || seq.end !== key.length) return undefined;
  const parts = children(key, seq);
  const n = unsignedInteger(key, parts[0]);
  const e = unsignedInteger(key, parts[1]);
  return parts.length === 2 && n && e ? { kty: 'RSA', n: b64url(n), e: b64url(e) } : undefined;
}

/**
 * The JWK of a DER SubjectPublicKeyInfo holding an RSA key, an EC key on P-256/384/521 as an
 * uncompressed point, or an Ed25519 key; undefined for any other or any irregular encoding (the
 * caller imports the DER then, which judges it). Why: node's DER import goes through OpenSSL 3's
 * decoder chain, ~200 µs a key whatever its type, the largest single cost of signing a CSR;
 * a JWK import builds the key from its numbers (RSA, Ed25519 ~10 µs; EC ~100 µs, the curve
 * still checks the point). The key is the same.
 */
export function spkiJwk(spki: Uint8Array): JsonWebKey | undefined {
  try {
    const outer = readTlv(spki, 0);
    if (outer.tag !== 0x30 || outer.end !== spki.length) return undefined;
    const [alg, bits, extra] = children(spki, outer);
    if (!alg || alg.tag !== 0x30 || !bits || bits.tag !== 0x03 || extra) return undefined;
    if (spki[bits.valueStart] !== 0) return undefined;
    const key = spki.subarray(bits.valueStart + 1, bits.end);
    const [oid, params, more] = children(spki, alg);
    if (!oid || oid.tag !== 0x06 || more) return undefined;
    const oidHex = Buffer.from(spki.subarray(oid.valueStart, oid.end)).toString('hex');
    if (oidHex === OID_RSA) {
      const nullParams = params?.tag === 0x05 && params.end === params.valueStart;
      return params === undefined || nullParams ? rsaJwk(key) : undefined;
    }
    if (oidHex === OID_ED25519)
      return params === undefined && key.length === 32
        ? { kty: 'OKP', crv: 'Ed25519', x: b64url(key) }
        : undefined;
    if (oidHex !== OID_EC || params?.tag !== 0x06) return undefined;
    const curve = CURVES[Buffer.from(spki.subarray(params.valueStart, params.end)).toString('hex')];
    if (!curve || key[0] !== 0x04 || key.length !== 1 + 2 * curve.size) return undefined;
    return {
      kty: 'EC',
      crv: curve.crv,
      x: b64url(key.subarray(1, 1 + curve.size)),
      y: b64url(key.subarray(1 + curve.size)),
    };
  } catch {
    return undefined;
  }
}
