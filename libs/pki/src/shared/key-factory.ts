import type { KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { generateKey, type KeySpec } from '../crypto/keys';
import { KeygenQueue } from '../crypto/keygen-queue';
import { PKI_OPTIONS, type PkiModuleOptions } from '../pki.di';

/** New keys for issue and CA generation; RSA goes through the replica's admission queue. */
@Injectable()
export class KeyFactory {
  private readonly rsa: KeygenQueue;

  constructor(@Inject(PKI_OPTIONS) options: PkiModuleOptions) {
    this.rsa = new KeygenQueue(options.keygenConcurrency ?? 2, options.keygenQueueLimit ?? 16);
  }

  generate(spec: KeySpec): Promise<KeyObject> {
    // EC and ed25519 keys take well under a millisecond: no queue.
    if (spec.type !== 'rsa') return generateKey(spec);
    // RSA key generation grows with about the cube of the size: 2048 = 1, 3072 ~ 3, 4096 ~ 8.
    return this.rsa.run(() => generateKey(spec), Math.max(1, Math.round((spec.bits / 2048) ** 3)));
  }
}
