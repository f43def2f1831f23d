import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { DomainError } from '@coffer/contracts';
import type { Cipher } from '@coffer/barrier';

/**
 * Envelope encryption for crypto-shredding: every secret version is encrypted under its own
 * random AES-256 data key; the data key is stored only wrapped by the barrier, in one read-model
 * row. Deleting that row makes every copy of the ciphertext (event log, read model, replicas,
 * backups of the log) undecryptable, while the append-only log keeps its events.
 *
 * Data ciphertext format: [12-byte nonce][ciphertext][16-byte tag], AAD = the version's location,
 * so a ciphertext cannot be moved to another path or version.
 */
const NONCE = 12;
const TAG = 16;

export interface SealedData {
  keyId: string;
  /** data key wrapped by the barrier (AAD: the key id) */
  wrappedKey: Buffer;
  ciphertext: Buffer;
}

export const wrapAad = (keyId: string): Buffer => Buffer.from(`kv-data-key\u0000${keyId}`);

export class DataKeyCipher {
  constructor(private readonly barrier: Cipher) {}

  seal(plaintext: Buffer, location: string): SealedData {
    const keyId = randomUUID();
    const key = randomBytes(32);
    try {
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(location));
      const ciphertext = Buffer.concat([
        nonce,
        cipher.update(plaintext),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return { keyId, wrappedKey: this.barrier.encrypt(key, wrapAad(keyId)), ciphertext };
    } finally {
      key.fill(0);
    }
  }

  open(sealed: SealedData, location: string): Buffer {
    const key = this.barrier.decrypt(sealed.wrappedKey, wrapAad(sealed.keyId));
    try {
      const data = sealed.ciphertext;
      if (data.length < NONCE + TAG) throw new DomainError('internal', 'kv: malformed data ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE));
      decipher.setAAD(Buffer.from(location));
      decipher.setAuthTag(data.subarray(data.length - TAG));
      try {
        return Buffer.concat([decipher.update(data.subarray(NONCE, data.length - TAG)), decipher.final()]);
      } catch {
        throw new DomainError('internal', 'kv: data authentication failed');
      }
    } finally {
      key.fill(0);
    }
  }

  /** A data key received from another cluster, wrapped by this cluster's barrier (replication). */
  wrapKey(keyId: string, key: Buffer): Buffer {
    return this.barrier.encrypt(key, wrapAad(keyId));
  }

  /** Barrier encryption of small read-model values (custom metadata), bound to their location. */
  encryptValue(plaintext: Buffer, location: string): Buffer {
    return this.barrier.encrypt(plaintext, Buffer.from(location));
  }

  decryptValue(ciphertext: Buffer, location: string): Buffer {
    return this.barrier.decrypt(ciphertext, Buffer.from(location));
  }
}

/** AAD of kv v2 version data. NUL separators: paths cannot contain NUL, so locations never collide. */
export const kv2Location = (mountUuid: string, path: string, version: number): string =>
  `kv2\u0000${mountUuid}\u0000${path}\u0000${version}`;

export const kv2CustomMetadataLocation = (mountUuid: string, path: string): string =>
  `kv2-custom-metadata\u0000${mountUuid}\u0000${path}`;

/** AAD of kv v1 / cubbyhole data; owner is "" for kv v1 and the token ref for cubbyhole. */
export const flatLocation = (mountUuid: string, owner: string, path: string): string =>
  `flat\u0000${mountUuid}\u0000${owner}\u0000${path}`;
