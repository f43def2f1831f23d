import { constants, sign, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describeKey } from './keys';

/**
 * Signing for @peculiar/x509 through node:crypto: the library builds the TBS structures and
 * asks its crypto provider for a signature; ours signs with a node KeyObject, so curves WebCrypto
 * lacks (P-224) and keys that never become CryptoKeys (no import per request) work alike.
 */

// WebCrypto has no P-224, so @peculiar/x509 does not know its point size (r||s -> DER).
x509.AsnEcSignatureFormatter.namedCurveSize.set('P-224', 28);

const CURVE_NAMES: Readonly<Record<number, string>> = {
  224: 'P-224',
  256: 'P-256',
  384: 'P-384',
  521: 'P-521',
};
const HASH_OF_BITS: Readonly<Record<number, string>> = { 256: 'SHA-256', 384: 'SHA-384', 512: 'SHA-512' };

/** The algorithm a key signs with, in WebCrypto terms (what @peculiar/x509 maps to an OID). */
export type SigningAlgorithm =
  | { name: 'RSASSA-PKCS1-v1_5'; hash: { name: string } }
  | { name: 'RSA-PSS'; hash: { name: string }; saltLength: number }
  | { name: 'ECDSA'; hash: { name: string }; namedCurve: string }
  | { name: 'Ed25519' };

/** A node key dressed as a CryptoKey: the generators read `algorithm` and hand it back to `sign`. */
export interface NodeSigningKey {
  readonly algorithm: SigningAlgorithm;
  readonly type: 'private';
  readonly extractable: false;
  readonly usages: ['sign'];
  readonly keyObject: KeyObject;
}

/**
 * Vault's defaults: SHA-256 for RSA unless signature_bits says otherwise; for EC the hash that
 * matches the curve (P-384 -> SHA-384, P-521 -> SHA-512).
 */
export function signingKeyOf(key: KeyObject, signatureBits = 0, usePss = false): NodeSigningKey {
  const spec = describeKey(key);
  if (!spec) throw new Error('pki: unsupported CA key type');
  let algorithm: SigningAlgorithm;
  if (spec.type === 'ed25519') algorithm = { name: 'Ed25519' };
  else if (spec.type === 'rsa') {
    const hash = { name: HASH_OF_BITS[signatureBits] ?? 'SHA-256' };
    algorithm = usePss
      ? { name: 'RSA-PSS', hash, saltLength: hashBytes(hash.name) }
      : { name: 'RSASSA-PKCS1-v1_5', hash };
  } else {
    const curveHash = spec.bits === 384 ? 'SHA-384' : spec.bits === 521 ? 'SHA-512' : 'SHA-256';
    const hash = { name: HASH_OF_BITS[signatureBits] ?? curveHash };
    algorithm = { name: 'ECDSA', hash, namedCurve: CURVE_NAMES[spec.bits] ?? 'P-256' };
  }
  return { algorithm, type: 'private', extractable: false, usages: ['sign'], keyObject: key };
}

const hashBytes = (hash: string): number => (hash === 'SHA-512' ? 64 : hash === 'SHA-384' ? 48 : 32);
const nodeHash = (hash: string): string => hash.replace('-', '').toLowerCase();

function signWith(key: NodeSigningKey, data: Buffer): Buffer {
  const alg = key.algorithm;
  switch (alg.name) {
    case 'Ed25519':
      return sign(null, data, key.keyObject);
    case 'RSASSA-PKCS1-v1_5':
      return sign(nodeHash(alg.hash.name), data, key.keyObject);
    case 'RSA-PSS':
      return sign(nodeHash(alg.hash.name), data, {
        key: key.keyObject,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: alg.saltLength,
      });
    case 'ECDSA':
      // WebCrypto's r||s form: the library's formatter turns it into the DER X.509 wants.
      return sign(nodeHash(alg.hash.name), data, { key: key.keyObject, dsaEncoding: 'ieee-p1363' });
  }
}

const subtle = {
  sign(_algorithm: unknown, key: NodeSigningKey, data: ArrayBuffer | ArrayBufferView): Promise<ArrayBuffer> {
    const bytes = ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(new Uint8Array(data));
    const signature = signWith(key, bytes);
    const out = new ArrayBuffer(signature.byteLength);
    new Uint8Array(out).set(signature);
    return Promise.resolve(out);
  },
};

/** The crypto provider handed to @peculiar/x509's generators (typed `never`: see asCryptoKey). */
export const nodeSigningCrypto: never = {
  subtle,
  getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
  randomUUID: webcrypto.randomUUID.bind(webcrypto),
} as never;

/** Cast for the generators' `signingKey` (a DOM CryptoKey, a type this build has no lib for). */
export const asCryptoKey = (key: NodeSigningKey): never => key as never;
