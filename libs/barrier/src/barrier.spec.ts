import { DomainError } from '@coffer/contracts';
import { Barrier } from './barrier';
import { createKeyring, rotateKeyring } from './keyring';

const aad = Buffer.from('kv|secret/abc|1|SecretWritten');
const pt = Buffer.from('{"password":"hunter2"}');

function unsealed(): Barrier {
  const b = new Barrier();
  b.load(createKeyring(new Date('2025-01-01T00:00:00.000Z')));
  return b;
}

describe('Barrier', () => {
  it('is sealed until a keyring is loaded', () => {
    const b = new Barrier();
    expect(b.sealed).toBe(true);
    expect(() => b.encrypt(pt, aad)).toThrow(new DomainError('sealed', 'Vault is sealed'));
    expect(() => b.decrypt(Buffer.alloc(40), aad)).toThrow('Vault is sealed');
    expect(() => b.keyStatus()).toThrow('Vault is sealed');
  });

  it('round-trips and uses a fresh nonce each time', () => {
    const b = unsealed();
    const c1 = b.encrypt(pt, aad);
    const c2 = b.encrypt(pt, aad);
    expect(c1.equals(c2)).toBe(false);
    expect(c1[0]).toBe(0x01);
    expect(c1.readUInt32BE(1)).toBe(1);
    expect(c1).toHaveLength(1 + 4 + 12 + pt.length + 16);
    expect(c1.includes(pt)).toBe(false);
    expect(b.decrypt(c1, aad).equals(pt)).toBe(true);
  });

  it('detects tampering anywhere in the ciphertext', () => {
    const b = unsealed();
    const c = b.encrypt(pt, aad);
    for (const i of [5, 10, 20, c.length - 1]) {
      const t = Buffer.from(c);
      t[i] = t[i]! ^ 0x80;
      expect(() => b.decrypt(t, aad)).toThrow(DomainError);
    }
    expect(() => b.decrypt(c.subarray(0, 20), aad)).toThrow('barrier: unknown ciphertext format');
  });

  it('binds the ciphertext to its aad', () => {
    const b = unsealed();
    const c = b.encrypt(pt, aad);
    expect(() => b.decrypt(c, Buffer.from('kv|secret/abc|2|SecretWritten'))).toThrow(
      new DomainError('internal', 'barrier: message authentication failed'),
    );
  });

  it('encrypts with the newest term and still decrypts older terms', () => {
    const k1 = createKeyring();
    const b = new Barrier();
    b.load(k1);
    const old = b.encrypt(pt, aad);
    const k2 = rotateKeyring(k1, new Date('2025-06-01T00:00:00.000Z'));
    b.load(k2);
    const fresh = b.encrypt(pt, aad);
    expect(fresh.readUInt32BE(1)).toBe(2);
    expect(b.decrypt(old, aad).equals(pt)).toBe(true);
    expect(b.decrypt(fresh, aad).equals(pt)).toBe(true);
    expect(b.keyStatus()).toEqual({ term: 2, install_time: '2025-06-01T00:00:00.000Z' });

    const onlyOld = new Barrier();
    onlyOld.load(k1);
    expect(() => onlyOld.decrypt(fresh, aad)).toThrow('barrier: no key for term 2');
  });

  it('keeps private key copies and zeroes nothing it does not own', () => {
    const k = createKeyring();
    const original = Buffer.from(k.terms[0]!.key);
    const b = new Barrier();
    b.load(k);
    const c = b.encrypt(pt, aad);
    k.terms[0]!.key.fill(0); // the caller wiping its copy does not break the barrier
    expect(b.decrypt(c, aad).equals(pt)).toBe(true);
    const exported = b.exportKeyring();
    expect(exported.terms[0]!.key.equals(original)).toBe(true);
    b.wipe();
    expect(b.sealed).toBe(true);
    expect(exported.terms[0]!.key.equals(original)).toBe(true);
    expect(() => b.decrypt(c, aad)).toThrow('Vault is sealed');
    expect(() => b.exportKeyring()).toThrow('Vault is sealed');
  });

  it('refuses a keyring whose active term is missing', () => {
    const k = createKeyring();
    expect(() => new Barrier().load({ ...k, activeTerm: 9 })).toThrow('keyring has no active term');
  });
});
