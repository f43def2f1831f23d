import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { DomainError } from '@coffer/contracts';
import { parseKeyring, serializeKeyring } from './keyring';
import type { KeyringData } from './barrier-types';

/**
 * Handing the keyring to engine services over the transport. The requester proves cluster
 * membership with an HMAC (cluster secret) over its fresh X25519 public key; core-sys answers
 * with the keyring encrypted to that key (ephemeral-static ECDH, HKDF-SHA256, AES-256-GCM).
 * A replayed request is useless: the answer only opens with the requester's private key.
 */

const X25519_KEY_LENGTH = 32;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const HKDF_INFO = Buffer.from('coffer/keyring-transport/v1');

export interface SealedKeyring {
  /** base64 raw X25519 public key of the sender's one-time key pair */
  ephemeralPublicKey: string;
  /** base64 [12-byte nonce][ciphertext][16-byte tag] */
  sealed: string;
}

export interface RecipientKeyPair {
  privateKey: KeyObject;
  /** base64 raw X25519 public key */
  publicKey: string;
}

const macInput = (service: string, publicKeyB64: string, nonce: string) =>
  `${service}|${publicKeyB64}|${nonce}`;

/** base64 HMAC-SHA256(clusterSecret, "service|publicKey|nonce") */
export function keyringRequestMac(
  clusterSecret: string | Uint8Array,
  service: string,
  publicKeyB64: string,
  nonce: string,
): string {
  return createHmac('sha256', clusterSecret)
    .update(macInput(service, publicKeyB64, nonce))
    .digest('base64');
}

export function verifyKeyringRequestMac(
  clusterSecret: string | Uint8Array,
  service: string,
  publicKeyB64: string,
  nonce: string,
  mac: string,
): boolean {
  const expected = Buffer.from(keyringRequestMac(clusterSecret, service, publicKeyB64, nonce), 'base64');
  const given = Buffer.from(mac, 'base64');
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

export function generateRecipientKeyPair(): RecipientKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey, publicKey: rawPublicKey(publicKey).toString('base64') };
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new DomainError('internal', 'not an X25519 key');
  return Buffer.from(jwk.x, 'base64url');
}

function importPublicKey(b64: string): { key: KeyObject; raw: Buffer } {
  const raw = Buffer.from(b64, 'base64');
  if (raw.length !== X25519_KEY_LENGTH || raw.toString('base64') !== b64) {
    throw new DomainError('invalid_request', 'invalid X25519 public key');
  }
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  return { key, raw };
}

/** The AES key both sides derive; salt binds it to both public keys. */
function transportKey(shared: Buffer, ephemeralRaw: Buffer, recipientRaw: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeralRaw, recipientRaw]), HKDF_INFO, 32));
}

function deriveShared(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  try {
    return diffieHellman({ privateKey, publicKey });
  } catch {
    // low-order points make X25519 fail; never answer with anything derived from them
    throw new DomainError('invalid_request', 'invalid X25519 public key');
  }
}

export function sealKeyringForRecipient(keyring: KeyringData, recipientPublicKeyB64: string): SealedKeyring {
  const recipient = importPublicKey(recipientPublicKeyB64);
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralRaw = rawPublicKey(ephemeral.publicKey);
  const shared = deriveShared(ephemeral.privateKey, recipient.key);
  const key = transportKey(shared, ephemeralRaw, recipient.raw);
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.concat([ephemeralRaw, recipient.raw]));
  const plaintext = serializeKeyring(keyring);
  try {
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      ephemeralPublicKey: ephemeralRaw.toString('base64'),
      sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64'),
    };
  } finally {
    plaintext.fill(0);
    shared.fill(0);
    key.fill(0);
  }
}

export function openSealedKeyring(privateKey: KeyObject, response: SealedKeyring): KeyringData {
  const ephemeral = importPublicKey(response.ephemeralPublicKey);
  const ownRaw = rawPublicKey(createPublicKey(privateKey));
  const data = Buffer.from(response.sealed, 'base64');
  if (data.length < NONCE_LENGTH + TAG_LENGTH)
    throw new DomainError('internal', 'sealed keyring is truncated');
  const shared = deriveShared(privateKey, ephemeral.key);
  const key = transportKey(shared, ephemeral.raw, ownRaw);
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_LENGTH));
  decipher.setAAD(Buffer.concat([ephemeral.raw, ownRaw]));
  decipher.setAuthTag(data.subarray(data.length - TAG_LENGTH));
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([
      decipher.update(data.subarray(NONCE_LENGTH, data.length - TAG_LENGTH)),
      decipher.final(),
    ]);
  } catch {
    throw new DomainError('internal', 'sealed keyring: message authentication failed');
  } finally {
    shared.fill(0);
    key.fill(0);
  }
  try {
    return parseKeyring(plaintext);
  } finally {
    plaintext.fill(0);
  }
}
