import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DomainError } from '@coffer/contracts';
import type { Cipher, KeyringData } from './barrier-types';

const FORMAT_VERSION = 0x01;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + 4 + NONCE_LENGTH;

interface LoadedTerm {
  key: Buffer;
  installedAt: string;
}

export interface KeyStatus {
  term: number;
  /** RFC 3339 time the active term was installed */
  install_time: string;
}

const sealedError = () => new DomainError('sealed', 'Vault is sealed');

/**
 * The in-memory barrier. Holds private copies of the keyring's keys so `wipe()` can zero them
 * without relying on the caller's buffers. Format: [0x01][u32be term][12-byte nonce][ct][16-byte tag].
 */
export class Barrier implements Cipher {
  #terms = new Map<number, LoadedTerm>();
  #activeTerm = 0;

  get sealed(): boolean {
    return this.#terms.size === 0;
  }

  /** Installs a keyring (replacing and wiping any previous one). */
  load(keyring: KeyringData): void {
    const terms = new Map<number, LoadedTerm>();
    for (const t of keyring.terms) {
      if (t.key.length !== 32) throw new DomainError('internal', 'keyring key must be 32 bytes');
      terms.set(t.term, { key: Buffer.from(t.key), installedAt: t.installedAt });
    }
    if (!terms.has(keyring.activeTerm)) throw new DomainError('internal', 'keyring has no active term');
    this.wipe();
    this.#terms = terms;
    this.#activeTerm = keyring.activeTerm;
  }

  wipe(): void {
    for (const t of this.#terms.values()) t.key.fill(0);
    this.#terms = new Map();
    this.#activeTerm = 0;
  }

  keyStatus(): KeyStatus {
    const active = this.#terms.get(this.#activeTerm);
    if (!active) throw sealedError();
    return { term: this.#activeTerm, install_time: active.installedAt };
  }

  /** A copy of the loaded keyring (core-sys persists rotations and seals it for engines). */
  exportKeyring(): KeyringData {
    if (this.sealed) throw sealedError();
    return {
      activeTerm: this.#activeTerm,
      terms: [...this.#terms.entries()].map(([term, t]) => ({
        term,
        key: Buffer.from(t.key),
        installedAt: t.installedAt,
      })),
    };
  }

  encrypt(plaintext: Uint8Array, aad: Uint8Array): Buffer {
    const active = this.#terms.get(this.#activeTerm);
    if (!active) throw sealedError();
    const header = Buffer.alloc(HEADER_LENGTH);
    header[0] = FORMAT_VERSION;
    header.writeUInt32BE(this.#activeTerm, 1);
    randomBytes(NONCE_LENGTH).copy(header, 5);
    const cipher = createCipheriv('aes-256-gcm', active.key, header.subarray(5));
    cipher.setAAD(aad);
    return Buffer.concat([header, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  decrypt(ciphertext: Uint8Array, aad: Uint8Array): Buffer {
    if (this.sealed) throw sealedError();
    const data = Buffer.from(ciphertext.buffer, ciphertext.byteOffset, ciphertext.byteLength);
    if (data.length < HEADER_LENGTH + TAG_LENGTH || data[0] !== FORMAT_VERSION) {
      throw new DomainError('internal', 'barrier: unknown ciphertext format');
    }
    const term = data.readUInt32BE(1);
    const loaded = this.#terms.get(term);
    if (!loaded) throw new DomainError('internal', `barrier: no key for term ${term}`);
    const decipher = createDecipheriv('aes-256-gcm', loaded.key, data.subarray(5, HEADER_LENGTH));
    decipher.setAAD(aad);
    decipher.setAuthTag(data.subarray(data.length - TAG_LENGTH));
    try {
      return Buffer.concat([
        decipher.update(data.subarray(HEADER_LENGTH, data.length - TAG_LENGTH)),
        decipher.final(),
      ]);
    } catch {
      throw new DomainError('internal', 'barrier: message authentication failed');
    }
  }
}
