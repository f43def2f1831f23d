import { base32Decode, base32Encode, counterAt, hotp } from './totp-codes';
import { decideTotpKey, otpauthUrl, totpKeyBody } from './totp-key';

// RFC 6238 appendix B: the seeds are ASCII "1234567890" repeated to the hash's key length.
const seed = (n: number) => Buffer.from('1234567890'.repeat(7).slice(0, n));

describe('totp codes', () => {
  it.each([
    [59, 'SHA1', 20, '94287082'],
    [59, 'SHA256', 32, '46119246'],
    [59, 'SHA512', 64, '90693936'],
    [1111111109, 'SHA1', 20, '07081804'],
    [20000000000, 'SHA256', 32, '77737706'],
  ] as const)('RFC 6238 vector at %i s (%s)', (seconds, algorithm, size, code) => {
    expect(hotp(seed(size), counterAt(seconds * 1000, 30), 8, algorithm)).toBe(code);
  });

  it('round-trips base32 and refuses bad text', () => {
    const bytes = Buffer.from('hello world, totp!');
    expect(base32Decode(base32Encode(bytes))?.equals(bytes)).toBe(true);
    expect(base32Decode('MZXW6===')?.toString()).toBe('foo');
    expect(base32Decode('1!')).toBeUndefined();
  });

  it('builds keys like Vault: generate needs issuer and account, digits 6 or 8', () => {
    const generated = decideTotpKey(
      totpKeyBody.parse({ generate: true, issuer: 'I', account_name: 'a' }),
      () => Buffer.alloc(20, 1),
    );
    expect(generated).toMatchObject({
      issuer: 'I',
      account_name: 'a',
      digits: 6,
      period: 30,
      algorithm: 'SHA1',
    });
    expect(otpauthUrl(generated)).toBe(
      `otpauth://totp/I%3Aa?algorithm=SHA1&digits=6&issuer=I&period=30&secret=${base32Encode(Buffer.alloc(20, 1))}`,
    );
    const fromUrl = decideTotpKey(totpKeyBody.parse({ url: otpauthUrl(generated) }));
    expect(fromUrl).toMatchObject({ key: generated.key, issuer: 'I', account_name: 'a' });
    expect(() => decideTotpKey(totpKeyBody.parse({ key: 'AAAA', digits: 7 }))).toThrow('6 or 8');
    expect(() => decideTotpKey(totpKeyBody.parse({ generate: true, key: 'AAAA' }))).toThrow(
      'a key should not be passed if generate is true',
    );
  });
});
