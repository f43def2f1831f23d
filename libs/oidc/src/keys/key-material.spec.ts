import { createHash } from 'node:crypto';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { generateKeyPair, hashClaim, publicJwk, signJwt, SUPPORTED_ALGORITHMS } from './key-material';

describe('named key material', () => {
  it.each(SUPPORTED_ALGORITHMS)('%s: signs a JWT that its public JWK verifies (jose)', async (alg) => {
    const pair = generateKeyPair(alg);
    const jwk = publicJwk(pair);
    expect(jwk).toMatchObject({ use: 'sig', kid: pair.kid, alg });
    expect(Object.keys(jwk)).not.toContain('d');
    const token = await signJwt(pair, { sub: 'e-1' });
    expect(decodeProtectedHeader(token)).toEqual({ alg, kid: pair.kid });
    const { payload } = await jwtVerify(token, await importJWK(jwk, alg), { algorithms: [alg] });
    expect(payload.sub).toBe('e-1');
  });

  it('hashes at_hash / c_hash as the left half of the algorithm digest', () => {
    const left = (hash: string) => {
      const d = createHash(hash).update('token').digest();
      return d.subarray(0, d.length / 2).toString('base64url');
    };
    expect(hashClaim('RS256', 'token')).toBe(left('sha256'));
    expect(hashClaim('ES384', 'token')).toBe(left('sha384'));
    expect(hashClaim('EdDSA', 'token')).toBe(left('sha512'));
  });
});
