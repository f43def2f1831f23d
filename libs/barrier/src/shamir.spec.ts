import { DomainError } from '@coffer/contracts';
import { combineShares, decodeKeyShare, generateRootKey, splitRootKey, validateShamirConfig } from './shamir';

const errorOf = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
};

describe('shamir', () => {
  it('generates 32-byte random root keys', () => {
    const a = generateRootKey();
    expect(a).toHaveLength(32);
    expect(a.equals(generateRootKey())).toBe(false);
  });

  it('1-of-1 returns the key itself as the single share', async () => {
    const key = generateRootKey();
    const shares = await splitRootKey(key, 1, 1);
    expect(shares).toHaveLength(1);
    expect(shares[0]!.equals(key)).toBe(true);
    expect((await combineShares(shares)).equals(key)).toBe(true);
  });

  it('3-of-5: any 3 shares recombine the key, 2 do not', async () => {
    const key = generateRootKey();
    const shares = await splitRootKey(key, 5, 3);
    expect(shares).toHaveLength(5);
    for (const s of shares) expect(s).toHaveLength(33);
    for (const pick of [
      [0, 1, 2],
      [4, 2, 0],
      [1, 3, 4],
    ]) {
      const combined = await combineShares(pick.map((i) => shares[i]!));
      expect(combined.equals(key)).toBe(true);
    }
    const tooFew = await combineShares([shares[0]!, shares[1]!]);
    expect(tooFew.equals(key)).toBe(false);
  });

  it('rejects duplicate and mismatched shares', async () => {
    const shares = await splitRootKey(generateRootKey(), 3, 2);
    await expect(combineShares([shares[0]!, shares[0]!])).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(combineShares([shares[0]!, shares[1]!.subarray(1)])).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(combineShares([])).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it.each([
    [0, 0, 'shares must be at least one'],
    [1, 0, 'threshold must be at least one'],
    [3, 1, 'threshold must be greater than one for multiple shares'],
    [256, 2, 'shares must be less than 256'],
    [2, 3, 'threshold cannot be larger than shares'],
  ])('validates shares=%i threshold=%i like Vault', (shares, threshold, message) => {
    const err = errorOf(() => validateShamirConfig(shares, threshold));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe(message);
  });
});

describe('decodeKeyShare', () => {
  const bytes = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff01', 'hex');

  it('decodes hex first', () => {
    expect(decodeKeyShare(bytes.toString('hex')).equals(bytes)).toBe(true);
    expect(decodeKeyShare(bytes.toString('hex').toUpperCase()).equals(bytes)).toBe(true);
  });

  it('falls back to base64', () => {
    expect(decodeKeyShare(bytes.toString('base64')).equals(bytes)).toBe(true);
  });

  it('reads a hex-looking string of the wrong length as base64', () => {
    // 8 hex chars = 4 bytes, below the 16-byte minimum: Vault decodes it as base64 instead
    expect(decodeKeyShare('deadbeef').equals(Buffer.from('deadbeef', 'base64'))).toBe(true);
  });

  it.each(['', 'not a key!', 'abc', 'Zm9v\n', 'Zm9v=x=='])('rejects %j', (input) => {
    const err = errorOf(() => decodeKeyShare(input));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toBe("'key' must be a valid hex or base64 string");
  });
});
