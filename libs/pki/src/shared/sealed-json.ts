import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { PKI_RUNTIME } from '../pki.di';

/**
 * JSON behind the barrier: how every read-model value of the pki service is stored. The AAD
 * binds a ciphertext to its row, so a value copied to another row does not decrypt.
 */
@Injectable()
export class SealedJson {
  constructor(@Inject(PKI_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'cipher'>) {}

  seal(value: unknown, place: string): Buffer {
    return this.runtime.cipher.encrypt(
      Buffer.from(JSON.stringify(value), 'utf8'),
      Buffer.from(place, 'utf8'),
    );
  }

  open<T>(sealed: Buffer, place: string): T {
    return JSON.parse(this.runtime.cipher.decrypt(sealed, Buffer.from(place, 'utf8')).toString('utf8')) as T;
  }
}

export const documentPlace = (mountUuid: string, kind: string, name: string): string =>
  `pki/${kind}/${mountUuid}/${name}`;
export const certificatePlace = (mountUuid: string, serial: string): string =>
  `pki/cert/${mountUuid}/${serial}`;
