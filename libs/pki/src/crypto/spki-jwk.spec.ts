import { createPublicKey, ECDH, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { publicKeyFromSpki } from './keys';
import { spkiJwk } from './spki-jwk';

const der = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'spki' });
const rsa = (modulusLength: number, publicExponent = 0x10001) =>
  der(generateKeyPairSync('rsa', { modulusLength, publicExponent }).publicKey);
const ec = (namedCurve: string) => der(generateKeyPairSync('ec', { namedCurve }).publicKey);
const ed25519 = () => der(generateKeyPairSync('ed25519').publicKey);

describe('spkiJwk', () => {
  it.each([
    ['rsa 2048', () => rsa(2048)],
    ['rsa 3072, exponent 3', () => rsa(3072, 3)],
    ['ec P-256', () => ec('P-256')],
    ['ec P-384', () => ec('P-384')],
    ['ec P-521', () => ec('P-521')],
    ['ed25519', ed25519],
  ])('reads %s into the same key as the DER import', (_name, make) => {
    const spki = make();
    expect(spkiJwk(spki)).toBeDefined();
    expect(publicKeyFromSpki(spki).export({ format: 'der', type: 'spki' }).equals(spki)).toBe(true);
  });

  it('leaves other keys and irregular encodings to the DER import', () => {
    const p224 = ec('P-224');
    expect(spkiJwk(p224)).toBeUndefined();
    expect(publicKeyFromSpki(p224).asymmetricKeyDetails?.namedCurve).toBe('secp224r1');
    // the same P-256 key with its point compressed
    const p256 = ec('P-256');
    const point = ECDH.convertKey(
      p256.subarray(p256.length - 65),
      'prime256v1',
      undefined,
      undefined,
      'compressed',
    );
    const compressed = Buffer.concat([
      p256.subarray(0, 2),
      p256.subarray(2, 23),
      Buffer.from([0x03, 0x22, 0x00]),
      point as Buffer,
    ]);
    compressed[1] = compressed.length - 2;
    expect(spkiJwk(compressed)).toBeUndefined();
    expect(publicKeyFromSpki(compressed).export({ format: 'jwk' })).toEqual(
      createPublicKey({ key: p256, format: 'der', type: 'spki' }).export({ format: 'jwk' }),
    );
    expect(spkiJwk(Buffer.concat([p256, Buffer.from([0])]))).toBeUndefined();
    expect(spkiJwk(p256.subarray(0, p256.length - 1))).toBeUndefined();
    expect(spkiJwk(Buffer.from('not der'))).toBeUndefined();
  });

  it('refuses a point off the curve as the DER import does', () => {
    const spki = ec('P-256');
    spki.writeUInt8((spki.at(-1) ?? 0) ^ 1, spki.length - 1);
    expect(spkiJwk(spki)).toBeDefined();
    expect(() => publicKeyFromSpki(spki)).toThrow();
    expect(() => createPublicKey({ key: spki, format: 'der', type: 'spki' })).toThrow();
  });
});
