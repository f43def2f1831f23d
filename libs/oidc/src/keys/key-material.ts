import { createHash, createPrivateKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { PublicJwk } from '@coffer/contracts/oidc';

/** The signing algorithms of Vault's named keys (go-jose names). */
export const SUPPORTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

export const isSigningAlgorithm = (alg: string): alg is SigningAlgorithm =>
  (SUPPORTED_ALGORITHMS as readonly string[]).includes(alg);

/** One keypair of a named key: its id and private JWK (kept behind the barrier only). */
export interface KeyPairRecord {
  kid: string;
  alg: SigningAlgorithm;
  /** the private key as a JWK (includes the public members) */
  jwk: Record<string, string>;
}

const CURVES: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** A fresh keypair: RSA 2048 (as Vault), the algorithm's EC curve, or Ed25519 for EdDSA. */
export function generateKeyPair(alg: SigningAlgorithm): KeyPairRecord {
  const { privateKey } =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg.startsWith('ES')
        ? generateKeyPairSync('ec', { namedCurve: CURVES[alg] ?? 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return { kid: randomUUID(), alg, jwk };
}

const PUBLIC_MEMBERS = ['kty', 'n', 'e', 'crv', 'x', 'y'] as const;

/** The public half of a keypair as a JWK for the JWKS (never a private member). */
export function publicJwk(pair: Pick<KeyPairRecord, 'kid' | 'alg' | 'jwk'>): PublicJwk {
  const out: PublicJwk = { use: 'sig', kty: pair.jwk['kty'] ?? '', kid: pair.kid, alg: pair.alg };
  for (const member of PUBLIC_MEMBERS) {
    const value = pair.jwk[member];
    if (value !== undefined) out[member] = value;
  }
  return out;
}

// Imported private keys by key id: signing is the hot path of the token endpoint.
const imported = new Map<string, KeyObject>();
const MAX_IMPORTED = 1000;

function privateKeyOf(pair: KeyPairRecord): KeyObject {
  let key = imported.get(pair.kid);
  if (!key) {
    key = createPrivateKey({ key: pair.jwk, format: 'jwk' });
    if (imported.size >= MAX_IMPORTED) imported.clear();
    imported.set(pair.kid, key);
  }
  return key;
}

/** A compact JWS of `claims` signed with the keypair, its key id in the header. */
export function signJwt(pair: KeyPairRecord, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: pair.alg, kid: pair.kid }).sign(privateKeyOf(pair));
}

const HASHES: Record<SigningAlgorithm, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
  // Ed25519 digests with SHA-512 (https://bitbucket.org/openid/connect/issues/1125), as Vault
  EdDSA: 'sha512',
};

/** at_hash / c_hash: the left half of the algorithm's hash of `input`, base64url (OIDC Core 3.1.3.6). */
export function hashClaim(alg: SigningAlgorithm, input: string): string {
  const digest = createHash(HASHES[alg]).update(input, 'utf8').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}
