import { constants, verify, type KeyObject } from 'node:crypto';
import { signedParts } from './der';

const nodeHash = (name: string | undefined): string => (name ?? 'SHA-256').replace('-', '').toLowerCase();
const hashBytes = (name: string | undefined): number =>
  name === 'SHA-512' ? 64 : name === 'SHA-384' ? 48 : 32;

/**
 * Whether a signed DER structure (CSR, certificate) carries a valid signature by `key`, checked
 * with node:crypto so every curve and key type Coffer issues for is covered.
 */
export function hasValidSignature(
  der: Uint8Array,
  algorithm: { name?: string; hash?: { name?: string } },
  key: KeyObject,
): boolean {
  let parts: { tbs: Buffer; signature: Buffer };
  try {
    parts = signedParts(der);
  } catch {
    return false;
  }
  const alg = algorithm;
  const hash = alg.hash?.name;
  try {
    switch (alg.name ?? '') {
      case 'Ed25519':
        return verify(null, parts.tbs, key, parts.signature);
      case 'RSASSA-PKCS1-v1_5':
      case 'ECDSA':
        return verify(nodeHash(hash), parts.tbs, key, parts.signature);
      case 'RSA-PSS':
        return verify(
          nodeHash(hash),
          parts.tbs,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: hashBytes(hash) },
          parts.signature,
        );
      default:
        return false;
    }
  } catch {
    return false;
  }
}
