import { DomainError } from '@coffer/contracts';
import {
  activeTerm,
  createKeyring,
  decryptKeyring,
  encryptKeyring,
  parseKeyring,
  rotateKeyring,
  serializeKeyring,
} from './keyring';
import { generateRootKey } from './shamir';

describe('keyring', () => {
  const now = new Date('2025-01-02T03:04:05.678Z');

  it('starts at term 1', () => {
    const k = createKeyring(now);
    expect(k.activeTerm).toBe(1);
    expect(k.terms).toHaveLength(1);
    expect(activeTerm(k)).toMatchObject({ term: 1, installedAt: '2025-01-02T03:04:05.678Z' });
    expect(activeTerm(k).key).toHaveLength(32);
  });

  it('rotation adds a new active term and keeps the old ones', () => {
    const k1 = createKeyring(now);
    const k2 = rotateKeyring(k1, new Date('2025-02-01T00:00:00.000Z'));
    expect(k2.activeTerm).toBe(2);
    expect(k2.terms.map((t) => t.term)).toEqual([1, 2]);
    expect(k2.terms[0]!.key.equals(k1.terms[0]!.key)).toBe(true);
    expect(k2.terms[1]!.key.equals(k1.terms[0]!.key)).toBe(false);
    expect(k1.activeTerm).toBe(1);
  });

  it('serializes and parses', () => {
    const k = rotateKeyring(createKeyring(now));
    const parsed = parseKeyring(serializeKeyring(k));
    expect(parsed.activeTerm).toBe(2);
    expect(parsed.terms.map((t) => [t.term, t.key.toString('hex'), t.installedAt])).toEqual(
      k.terms.map((t) => [t.term, t.key.toString('hex'), t.installedAt]),
    );
  });

  it('rejects malformed keyrings', () => {
    expect(() => parseKeyring(Buffer.from('nope'))).toThrow(DomainError);
    expect(() => parseKeyring(Buffer.from(JSON.stringify({ activeTerm: 2, terms: [] })))).toThrow(
      DomainError,
    );
    const k = createKeyring(now);
    const wrongActive = JSON.parse(serializeKeyring(k).toString());
    wrongActive.activeTerm = 7;
    expect(() => parseKeyring(Buffer.from(JSON.stringify(wrongActive)))).toThrow(
      'keyring has no active term',
    );
  });

  it('encrypts under the root key; a wrong root key fails like Vault', () => {
    const root = generateRootKey();
    const k = createKeyring(now);
    const blob = encryptKeyring(root, k);
    expect(blob.includes(activeTerm(k).key)).toBe(false);
    expect(activeTerm(decryptKeyring(root, blob)).key.equals(activeTerm(k).key)).toBe(true);
    let caught: unknown;
    try {
      decryptKeyring(generateRootKey(), blob);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({
      code: 'invalid_request',
      message: 'cipher: message authentication failed',
    });
  });

  it('detects a tampered keyring blob', () => {
    const root = generateRootKey();
    const blob = encryptKeyring(root, createKeyring(now));
    blob[20] = blob[20]! ^ 0x01;
    expect(() => decryptKeyring(root, blob)).toThrow('cipher: message authentication failed');
  });
});
