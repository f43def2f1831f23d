import { Barrier, createKeyring } from '@coffer/barrier';
import { DomainError } from '@coffer/contracts';
import { DataKeyCipher, kv2Location } from './data-keys';

describe('data keys', () => {
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const cipher = new DataKeyCipher(barrier);
  const plaintext = Buffer.from(JSON.stringify({ password: 'hunter2' }));

  it('round-trips under a fresh key per seal', () => {
    const loc = kv2Location('m', 'a/b', 1);
    const a = cipher.seal(plaintext, loc);
    const b = cipher.seal(plaintext, loc);
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.ciphertext.includes(Buffer.from('hunter2'))).toBe(false);
    expect(cipher.open(a, loc).equals(plaintext)).toBe(true);
  });

  it('binds the ciphertext to its location and its key', () => {
    const a = cipher.seal(plaintext, kv2Location('m', 'a', 1));
    const b = cipher.seal(plaintext, kv2Location('m', 'a', 2));
    expect(() => cipher.open(a, kv2Location('m', 'a', 2))).toThrow(DomainError);
    expect(() => cipher.open({ ...a, wrappedKey: b.wrappedKey }, kv2Location('m', 'a', 1))).toThrow(
      DomainError,
    );
  });
});
