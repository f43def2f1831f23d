import { Barrier, createKeyring } from '@coffer/barrier';
import { KeyringSet } from './replica-keyrings.repository';

const barrier = (): Barrier => {
  const b = new Barrier();
  b.load(createKeyring());
  return b;
};

describe('KeyringSet', () => {
  it("opens what any of its keyrings wrote, and nothing else (each cluster's keyring starts at term 1)", () => {
    const own = barrier();
    const former = barrier();
    const stranger = barrier();
    const aad = Buffer.from('kv|kv/x/y|1|SecretWritten');
    const set = new KeyringSet([own, former]);
    expect(set.decrypt(own.encrypt(Buffer.from('mine'), aad), aad).toString()).toBe('mine');
    expect(set.decrypt(former.encrypt(Buffer.from('theirs'), aad), aad).toString()).toBe('theirs');
    expect(() => set.decrypt(stranger.encrypt(Buffer.from('no'), aad), aad)).toThrow();
    expect(() => set.encrypt()).toThrow();
    expect(set.sealed).toBe(false);
  });
});
