import type { Cipher } from '@coffer/barrier';

/**
 * JSON behind the barrier: every body the read model keeps is encrypted with the service's
 * cipher, bound to its row (`aad`), so rows cannot be swapped.
 */
export class SealedJson {
  constructor(private readonly cipher: Cipher) {}

  seal(value: unknown, aad: string): Buffer {
    return this.cipher.encrypt(Buffer.from(JSON.stringify(value), 'utf8'), Buffer.from(aad, 'utf8'));
  }

  open<T>(ciphertext: Uint8Array, aad: string): T {
    return JSON.parse(this.cipher.decrypt(ciphertext, Buffer.from(aad, 'utf8')).toString('utf8')) as T;
  }

  get sealed(): boolean {
    return this.cipher.sealed;
  }

  /** throws DomainError('sealed') while this replica has no keyring */
  assertUnsealed(): void {
    if (this.cipher.sealed) this.cipher.encrypt(Buffer.alloc(0), Buffer.alloc(0));
  }
}
