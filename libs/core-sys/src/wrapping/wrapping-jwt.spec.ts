import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { isJwt, p521KeyFrom } from './wrapping-jwt';

/** JOSE's r||s signature as the DER ECDSA-Sig-Value openssl reads. */
function derSignature(raw: Buffer): Buffer {
  const int = (b: Buffer): Buffer => {
    let v = b;
    while (v.length > 1 && v[0] === 0 && (v[1] ?? 0) < 0x80) v = v.subarray(1);
    if ((v[0] ?? 0) >= 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02, v.length]), v]);
  };
  const half = raw.length / 2;
  const body = Buffer.concat([int(raw.subarray(0, half)), int(raw.subarray(half))]);
  const len = body.length < 0x80 ? Buffer.from([body.length]) : Buffer.from([0x81, body.length]);
  return Buffer.concat([Buffer.from([0x30]), len, body]);
}

describe('the wrapping JWT key', () => {
  it('is a P-521 key derived deterministically from its material', () => {
    const material = Buffer.alloc(82, 7);
    const a = p521KeyFrom(material);
    const b = p521KeyFrom(material);
    expect(a.publicKey.export({ format: 'jwk' })).toEqual(b.publicKey.export({ format: 'jwk' }));
    expect(a.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'secp521r1' });
    expect(p521KeyFrom(Buffer.alloc(82, 8)).publicKey.export({ format: 'jwk' })).not.toEqual(
      a.publicKey.export({ format: 'jwk' }),
    );
  });

  it('signs ES512 JWTs that openssl verifies with the public key', async () => {
    const { privateKey, publicKey } = p521KeyFrom(Buffer.alloc(82, 3));
    const jwt = await new SignJWT({ type: 'wrapping' })
      .setProtectedHeader({ alg: 'ES512', typ: 'JWT' })
      .setJti('hvs.x')
      .sign(privateKey);
    const [header = '', payload = '', signature = ''] = jwt.split('.');
    const dir = mkdtempSync(join(tmpdir(), 'wrapjwt-'));
    writeFileSync(join(dir, 'pub.pem'), publicKey.export({ format: 'pem', type: 'spki' }));
    writeFileSync(join(dir, 'data'), `${header}.${payload}`);
    writeFileSync(join(dir, 'sig'), derSignature(Buffer.from(signature, 'base64url')));
    const out = execFileSync('openssl', [
      'dgst',
      '-sha512',
      '-verify',
      join(dir, 'pub.pem'),
      '-signature',
      join(dir, 'sig'),
      join(dir, 'data'),
    ]).toString();
    expect(out.trim()).toBe('Verified OK');
  });

  it("tells JWTs from Vault tokens as Vault's IsJWT does", () => {
    expect(isJwt('aaaa.bbbb.cccc')).toBe(true);
    expect(isJwt('hvs.abcdef')).toBe(false);
    expect(isJwt('s.abc.ns1')).toBe(false);
    expect(isJwt('hvs.abc.def')).toBe(false);
  });
});
