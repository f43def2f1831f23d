import { createECDH, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import { jwtVerify, SignJWT } from 'jose';
import { CORE_SYS_OPTIONS, type CoreSysOptions } from '../core-sys.di';
import { TokenSalt } from '../tokens/token-salt';

/** The order of P-521's base point: private scalars live in [1, n-1]. */
const P521_ORDER = BigInt(
  '6864797660130609714981900799081393217269435300143305409394463459185543183397655394245057746333217197532963996371363321113864768612440380340372808892707005449',
);
const SCALAR_BYTES = 66;
const KEY_LABEL = 'coffer wrapping jwt key v1';

/** Vault's IsJWT: two dots, and not a namespaced token ("s.xxx.ns" has a dot at 1, "hvs." at 3). */
export function isJwt(token: string): boolean {
  return token.length > 3 && token.split('.').length === 3 && token[3] !== '.' && token[1] !== '.';
}

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A P-521 key pair from 66+16 bytes of key material (reduced mod n-1, plus one: never zero). */
export function p521KeyFrom(material: Buffer): KeyPair {
  const d = (BigInt(`0x${material.toString('hex')}`) % (P521_ORDER - 1n)) + 1n;
  const scalar = Buffer.from(d.toString(16).padStart(SCALAR_BYTES * 2, '0'), 'hex');
  const ecdh = createECDH('secp521r1');
  ecdh.setPrivateKey(scalar);
  const point = ecdh.getPublicKey(null, 'uncompressed');
  const jwk = {
    kty: 'EC',
    crv: 'P-521',
    x: point.subarray(1, 1 + SCALAR_BYTES).toString('base64url'),
    y: point.subarray(1 + SCALAR_BYTES).toString('base64url'),
  };
  return {
    privateKey: createPrivateKey({ key: { ...jwk, d: scalar.toString('base64url') }, format: 'jwk' }),
    publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
  };
}

const validationError = (reason: string): DomainError =>
  new DomainError('permission_denied', `error validating wrapping token: ${reason}`);

/** The JWT's claims if `publicKey` signed it, else undefined. */
async function verified(
  jwt: string,
  publicKey: KeyPair['publicKey'],
): Promise<Record<string, unknown> | undefined> {
  try {
    const { payload } = await jwtVerify(jwt, publicKey, {
      algorithms: ['ES512'],
      // Vault does not validate the time claims of a wrapping JWT
      clockTolerance: Number.MAX_SAFE_INTEGER,
    });
    return payload;
  } catch {
    return undefined;
  }
}

/**
 * Vault's JWT wrapping format (X-Vault-Wrap-Format: jwt): the wrapping token travels inside an
 * ES512 JWT (jti = the token; type "wrapping"; addr = the API address; accessor = the wrapped
 * accessor). Vault keeps a random P-521 key behind the barrier; here the key is derived from the
 * cluster's token salt (behind the barrier too), so every replica signs and checks with the same
 * key without another stored secret.
 */
@Injectable()
export class WrappingJwt {
  private keys: { salt: unknown; pair: KeyPair } | undefined;
  /**
   * The DR primary's keys (its token salt's, and those of the clusters it was promoted from), by
   * hasher, for the JWTs they signed before this cluster took over.
   */
  private readonly primaryKeys = new WeakMap<object, KeyPair>();

  constructor(
    private readonly salt: TokenSalt,
    @Inject(CORE_SYS_OPTIONS) private readonly options: Pick<CoreSysOptions, 'apiAddr'>,
  ) {}

  async sign(claims: {
    token: string;
    createdAt: number;
    ttl: number;
    wrappedAccessor: string;
  }): Promise<string> {
    const { privateKey } = await this.pair();
    const created = Math.floor(claims.createdAt / 1000);
    return new SignJWT({ accessor: claims.wrappedAccessor, type: 'wrapping', addr: this.options.apiAddr })
      .setProtectedHeader({ alg: 'ES512', typ: 'JWT' })
      .setJti(claims.token)
      .setIssuedAt(created)
      .setExpirationTime(created + claims.ttl)
      .setNotBefore(Math.floor(Date.now() / 1000) - 5)
      .sign(privateKey);
  }

  /**
   * The wrapping token inside a JWT. Like Vault, only the signature and the type claim are
   * checked here: expiry is the wrapping token's own.
   */
  async open(jwt: string): Promise<string> {
    let payload = await verified(jwt, (await this.pair()).publicKey);
    for (const pair of payload ? [] : await this.primaryPairs()) {
      payload = await verified(jwt, pair.publicKey);
      if (payload) break;
    }
    if (!payload) throw validationError('wrapping token signature could not be validated');
    if (!('type' in payload)) throw validationError('could not validate type claim');
    if (typeof payload['type'] !== 'string') throw validationError('could not parse type claim');
    if (payload['type'] !== 'wrapping') throw validationError('unexpected type claim');
    const jti = payload['jti'];
    if (typeof jti !== 'string' || jti === '') throw validationError('token is empty');
    return jti;
  }

  /** The key pairs of the replicated token salts (the primary's, and those it inherited). */
  private async primaryPairs(): Promise<KeyPair[]> {
    return (await this.salt.primaryHashers()).map((hasher) => {
      let pair = this.primaryKeys.get(hasher);
      if (!pair) {
        pair = p521KeyFrom(hasher.derive(KEY_LABEL, SCALAR_BYTES + 16));
        this.primaryKeys.set(hasher, pair);
      }
      return pair;
    });
  }

  private async pair(): Promise<KeyPair> {
    const hasher = await this.salt.get();
    if (this.keys?.salt !== hasher) {
      this.keys = { salt: hasher, pair: p521KeyFrom(hasher.derive(KEY_LABEL, SCALAR_BYTES + 16)) };
    }
    return this.keys.pair;
  }
}
