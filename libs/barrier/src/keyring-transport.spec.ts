import { createKeyring, rotateKeyring } from './keyring';
import {
  generateRecipientKeyPair,
  keyringRequestMac,
  openSealedKeyring,
  sealKeyringForRecipient,
  verifyKeyringRequestMac,
} from './keyring-transport';

describe('keyring transport', () => {
  const keyring = rotateKeyring(createKeyring());

  it('seals the keyring to the recipient only', () => {
    const recipient = generateRecipientKeyPair();
    expect(Buffer.from(recipient.publicKey, 'base64')).toHaveLength(32);
    const sealed = sealKeyringForRecipient(keyring, recipient.publicKey);
    const raw = Buffer.from(sealed.sealed, 'base64');
    for (const t of keyring.terms) {
      expect(raw.includes(t.key)).toBe(false);
      expect(sealed.sealed.includes(t.key.toString('base64'))).toBe(false);
    }
    const opened = openSealedKeyring(recipient.privateKey, sealed);
    expect(opened.activeTerm).toBe(2);
    expect(opened.terms.map((t) => t.key.toString('hex'))).toEqual(
      keyring.terms.map((t) => t.key.toString('hex')),
    );

    const stranger = generateRecipientKeyPair();
    expect(() => openSealedKeyring(stranger.privateKey, sealed)).toThrow('message authentication failed');
  });

  it('uses a fresh ephemeral key per response', () => {
    const recipient = generateRecipientKeyPair();
    const a = sealKeyringForRecipient(keyring, recipient.publicKey);
    const b = sealKeyringForRecipient(keyring, recipient.publicKey);
    expect(a.ephemeralPublicKey).not.toBe(b.ephemeralPublicKey);
  });

  it('detects a tampered or re-targeted response', () => {
    const recipient = generateRecipientKeyPair();
    const sealed = sealKeyringForRecipient(keyring, recipient.publicKey);
    const raw = Buffer.from(sealed.sealed, 'base64');
    raw[15] = raw[15]! ^ 0x01;
    expect(() =>
      openSealedKeyring(recipient.privateKey, { ...sealed, sealed: raw.toString('base64') }),
    ).toThrow('message authentication failed');
    const other = generateRecipientKeyPair();
    const swapped = { ...sealed, ephemeralPublicKey: other.publicKey };
    expect(() => openSealedKeyring(recipient.privateKey, swapped)).toThrow('message authentication failed');
  });

  it('rejects malformed public keys', () => {
    expect(() => sealKeyringForRecipient(keyring, 'abc')).toThrow('invalid X25519 public key');
    expect(() => sealKeyringForRecipient(keyring, Buffer.alloc(31).toString('base64'))).toThrow(
      'invalid X25519 public key',
    );
    // an all-zero (low-order) point must never yield a response
    expect(() => sealKeyringForRecipient(keyring, Buffer.alloc(32).toString('base64'))).toThrow(
      'invalid X25519 public key',
    );
  });

  it('verifies request MACs', () => {
    const secret = 'cluster-secret';
    const { publicKey } = generateRecipientKeyPair();
    const mac = keyringRequestMac(secret, 'kv', publicKey, 'n1');
    expect(verifyKeyringRequestMac(secret, 'kv', publicKey, 'n1', mac)).toBe(true);
    expect(verifyKeyringRequestMac(Buffer.from(secret), 'kv', publicKey, 'n1', mac)).toBe(true);
    expect(verifyKeyringRequestMac('other-secret', 'kv', publicKey, 'n1', mac)).toBe(false);
    expect(verifyKeyringRequestMac(secret, 'pki', publicKey, 'n1', mac)).toBe(false);
    expect(verifyKeyringRequestMac(secret, 'kv', publicKey, 'n2', mac)).toBe(false);
    expect(verifyKeyringRequestMac(secret, 'kv', generateRecipientKeyPair().publicKey, 'n1', mac)).toBe(
      false,
    );
    expect(verifyKeyringRequestMac(secret, 'kv', publicKey, 'n1', mac.slice(0, 10))).toBe(false);
    expect(verifyKeyringRequestMac(secret, 'kv', publicKey, 'n1', '')).toBe(false);
  });
});
