import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '@coffer/contracts';
import type { KeyringData, KeyringTerm } from './barrier-types';

const KEY_LENGTH = 32;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const BLOB_VERSION = 0x01;
// Binds the encrypted keyring blob to its purpose: the root key never decrypts anything else.
const KEYRING_AAD = Buffer.from('coffer/keyring/v1');

export function createKeyring(now: Date = new Date()): KeyringData {
  return {
    activeTerm: 1,
    terms: [{ term: 1, key: randomBytes(KEY_LENGTH), installedAt: now.toISOString() }],
  };
}

/** Adds a new term and makes it active; older terms stay so existing ciphertexts still decrypt. */
export function rotateKeyring(keyring: KeyringData, now: Date = new Date()): KeyringData {
  const next = Math.max(0, ...keyring.terms.map((t) => t.term)) + 1;
  return {
    activeTerm: next,
    terms: [
      ...keyring.terms.map(copyTerm),
      { term: next, key: randomBytes(KEY_LENGTH), installedAt: now.toISOString() },
    ],
  };
}

export function activeTerm(keyring: KeyringData): KeyringTerm {
  const term = keyring.terms.find((t) => t.term === keyring.activeTerm);
  if (!term) throw new DomainError('internal', 'keyring has no active term');
  return term;
}

const copyTerm = (t: KeyringTerm): KeyringTerm => ({
  term: t.term,
  key: Buffer.from(t.key),
  installedAt: t.installedAt,
});

const serializedSchema = z.object({
  activeTerm: z.number().int().positive(),
  terms: z
    .array(
      z.object({
        term: z.number().int().positive().max(0xffffffff),
        key: z.base64(),
        installedAt: z.string(),
      }),
    )
    .min(1),
});

/** JSON bytes of the keyring (keys in base64). Only ever stored or sent encrypted. */
export function serializeKeyring(keyring: KeyringData): Buffer {
  return Buffer.from(
    JSON.stringify({
      activeTerm: keyring.activeTerm,
      terms: keyring.terms.map((t) => ({
        term: t.term,
        key: t.key.toString('base64'),
        installedAt: t.installedAt,
      })),
    }),
    'utf8',
  );
}

export function parseKeyring(bytes: Uint8Array): KeyringData {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new DomainError('internal', 'keyring is not valid JSON');
  }
  const parsed = serializedSchema.safeParse(raw);
  if (!parsed.success) throw new DomainError('internal', 'keyring has an invalid shape');
  const keyring: KeyringData = {
    activeTerm: parsed.data.activeTerm,
    terms: parsed.data.terms.map((t) => ({
      term: t.term,
      key: Buffer.from(t.key, 'base64'),
      installedAt: t.installedAt,
    })),
  };
  if (keyring.terms.some((t) => t.key.length !== KEY_LENGTH))
    throw new DomainError('internal', 'keyring key has a wrong length');
  if (new Set(keyring.terms.map((t) => t.term)).size !== keyring.terms.length) {
    throw new DomainError('internal', 'keyring has duplicate terms');
  }
  activeTerm(keyring);
  return keyring;
}

/** [0x01][12-byte nonce][ciphertext][16-byte tag], AES-256-GCM under the root key. */
export function encryptKeyring(rootKey: Uint8Array, keyring: KeyringData): Buffer {
  if (rootKey.byteLength !== KEY_LENGTH) throw new DomainError('internal', 'root key must be 32 bytes');
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', rootKey, nonce);
  cipher.setAAD(KEYRING_AAD);
  const plaintext = serializeKeyring(keyring);
  try {
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([BLOB_VERSION]), nonce, body, cipher.getAuthTag()]);
  } finally {
    plaintext.fill(0);
  }
}

/**
 * Decrypts the stored keyring. A wrong root key (wrong or mismatched unseal shares) fails the GCM
 * tag check and answers with Vault's own text for that case.
 */
export function decryptKeyring(rootKey: Uint8Array, blob: Uint8Array): KeyringData {
  const authFailed = () => new DomainError('invalid_request', 'cipher: message authentication failed');
  if (rootKey.byteLength !== KEY_LENGTH) throw authFailed();
  const data = Buffer.from(blob);
  if (data.length < 1 + NONCE_LENGTH + TAG_LENGTH || data[0] !== BLOB_VERSION) {
    throw new DomainError('internal', 'stored keyring has an unknown format');
  }
  const nonce = data.subarray(1, 1 + NONCE_LENGTH);
  const tag = data.subarray(data.length - TAG_LENGTH);
  const body = data.subarray(1 + NONCE_LENGTH, data.length - TAG_LENGTH);
  const decipher = createDecipheriv('aes-256-gcm', rootKey, nonce);
  decipher.setAAD(KEYRING_AAD);
  decipher.setAuthTag(tag);
  let plaintext: Buffer;
  try {
    plaintext = Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw authFailed();
  }
  try {
    return parseKeyring(plaintext);
  } finally {
    plaintext.fill(0);
  }
}
