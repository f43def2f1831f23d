import type { Cipher } from '@coffer/barrier';

/** JSON values behind the barrier, bound to where they are stored (a moved row does not decrypt). */
export class SealedJson {
  constructor(private readonly cipher: Cipher) {}

  seal(value: unknown, place: string): Buffer {
    return this.cipher.encrypt(Buffer.from(JSON.stringify(value), 'utf8'), Buffer.from(place, 'utf8'));
  }

  open(sealed: Buffer, place: string): unknown {
    return JSON.parse(this.cipher.decrypt(sealed, Buffer.from(place, 'utf8')).toString('utf8'));
  }
}
