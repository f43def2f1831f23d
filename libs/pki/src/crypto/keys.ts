import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { invalidRequest } from '@coffer/contracts';
import { spkiJwk } from './spki-jwk';

const generate = promisify(generateKeyPair);

export type KeyType = 'rsa' | 'ec' | 'ed25519';

/** A key to generate: its type and size (bits; the curve size for ec, 0 for ed25519). */
export interface KeySpec {
  type: KeyType;
  bits: number;
}

const EC_CURVES: Readonly<Record<number, string>> = {
  224: 'secp224r1',
  256: 'prime256v1',
  384: 'secp384r1',
  521: 'secp521r1',
};
const CURVE_BITS: Readonly<Record<string, number>> = {
  secp224r1: 224,
  prime256v1: 256,
  secp384r1: 384,
  secp521r1: 521,
};
const RSA_BITS = new Set([2048, 3072, 4096, 8192]);

/**
 * Vault's certutil.ValidateKeyTypeLength: the key type and size of a role or a CA, with 0 meaning
 * the type's default. `any` is only for roles that sign CSRs.
 */
export function resolveKeySpec(type: string, bits: number, allowAny = false): { type: string; bits: number } {
  switch (type) {
    case 'rsa': {
      const size = bits === 0 ? 2048 : bits;
      if (!RSA_BITS.has(size)) throw invalidRequest(`unsupported bit length for RSA key: ${bits}`);
      return { type, bits: size };
    }
    case 'ec': {
      const size = bits === 0 ? 256 : bits;
      if (EC_CURVES[size] === undefined) throw invalidRequest(`unsupported bit length for EC key: ${bits}`);
      return { type, bits: size };
    }
    case 'ed25519':
      return { type, bits: 0 };
    case 'any':
      if (allowAny) return { type, bits };
      break;
  }
  throw invalidRequest(`unknown key type ${type}`);
}

/**
 * A new key pair. node:crypto runs the generation on the libuv pool, off the event loop (RSA
 * takes ~100-200 ms a key; RSA for certificates goes through RsaKeySupply).
 */
export async function generateKey(spec: KeySpec): Promise<KeyObject> {
  switch (spec.type) {
    case 'rsa':
      return (await generate('rsa', { modulusLength: spec.bits, publicExponent: 0x10001 })).privateKey;
    case 'ec': {
      const namedCurve = EC_CURVES[spec.bits];
      if (namedCurve === undefined) throw invalidRequest(`unsupported bit length for EC key: ${spec.bits}`);
      return (await generate('ec', { namedCurve })).privateKey;
    }
    case 'ed25519':
      return (await generate('ed25519', {})).privateKey;
  }
}

/** The type and size of a key (public or private); undefined for types Coffer does not sign for. */
export function describeKey(key: KeyObject): KeySpec | undefined {
  const details = key.asymmetricKeyDetails ?? {};
  const kind = key.asymmetricKeyType;
  if (kind === 'rsa') return { type: 'rsa', bits: details.modulusLength ?? 0 };
  if (kind === 'ed25519') return { type: 'ed25519', bits: 0 };
  if (kind !== 'ec') return undefined;
  const bits = CURVE_BITS[details.namedCurve ?? ''];
  return bits === undefined ? undefined : { type: 'ec', bits };
}

/**
 * A private key as Vault answers it: `der` is PKCS#1 (rsa) / SEC1 (ec) / PKCS#8 (ed25519),
 * `pkcs8` PKCS#8 for all; PEM for format pem / pem_bundle, base64 DER for format der.
 */
export function exportPrivateKey(key: KeyObject, keyFormat: string, pem: boolean): string {
  const kind = key.asymmetricKeyType;
  const type = keyFormat === 'pkcs8' || kind === 'ed25519' ? 'pkcs8' : kind === 'rsa' ? 'pkcs1' : 'sec1';
  if (pem) return (key.export({ type, format: 'pem' }) as string).trim();
  return (key.export({ type, format: 'der' }) as Buffer).toString('base64');
}

/** PKCS#8 PEM: how a CA key is kept (behind the barrier). */
export const privateKeyToPem = (key: KeyObject): string =>
  (key.export({ type: 'pkcs8', format: 'pem' }) as string).trim();

/** A private key from PEM (PKCS#1, SEC1 or PKCS#8); undefined when it is not one. */
export function parsePrivateKeyPem(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return undefined;
  }
}

/** The DER SubjectPublicKeyInfo of a key. */
export const spkiOf = (key: KeyObject): Buffer =>
  (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });

/** The key of a DER SubjectPublicKeyInfo; through its JWK where it has a plain one (spki-jwk.ts: faster). */
export function publicKeyFromSpki(spki: Uint8Array): KeyObject {
  const jwk = spkiJwk(spki);
  return jwk
    ? createPublicKey({ key: jwk, format: 'jwk' })
    : createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
}
