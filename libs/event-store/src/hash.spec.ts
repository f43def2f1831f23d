import { chainHash, GENESIS_HASH } from './hash';

const base = {
  wal: 1,
  stream: 'kv/m/a',
  streamVersion: 1,
  type: 'SecretWritten',
  schemaVersion: 1,
  payload: Buffer.from([1, 2, 3]),
};

describe('chainHash', () => {
  it('is a deterministic hex SHA-256', () => {
    const h = chainHash(GENESIS_HASH, base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(chainHash(GENESIS_HASH, { ...base })).toBe(h);
  });

  it('changes with every field', () => {
    const h = chainHash(GENESIS_HASH, base);
    const variants = [
      chainHash('1'.repeat(64), base),
      chainHash(GENESIS_HASH, { ...base, wal: 2 }),
      chainHash(GENESIS_HASH, { ...base, stream: 'kv/m/b' }),
      chainHash(GENESIS_HASH, { ...base, streamVersion: 2 }),
      chainHash(GENESIS_HASH, { ...base, type: 'SecretDeleted' }),
      chainHash(GENESIS_HASH, { ...base, schemaVersion: 2 }),
      chainHash(GENESIS_HASH, { ...base, payload: Buffer.from([1, 2, 4]) }),
    ];
    expect(new Set([h, ...variants]).size).toBe(variants.length + 1);
  });

  it('cannot be fooled by moving bytes between fields', () => {
    expect(chainHash(GENESIS_HASH, { ...base, stream: 'ab', type: 'c' })).not.toBe(
      chainHash(GENESIS_HASH, { ...base, stream: 'a', type: 'bc' }),
    );
  });
});
