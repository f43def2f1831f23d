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
    // One key at a time per replica: a key generation holds a core for ~150 ms, and with two at
    // once a 2-core node had no core left for the other services (KV p99 under RSA load 12 -> 31 ms;
    // with one: unchanged at a fixed read rate, bench "KV v2 read at 2,000/s under RSA issue
    // load"). Scale RSA throughput with replicas. 32 waiting 2048-bit keys are ~5 s of work, under
    // the gateway's engine timeout, so a queued request is answered, not timed out.
    this.rsa = new KeygenQueue(options.keygenConcurrency ?? 1, options.keygenQueueLimit ?? 32);
  }

  generate(spec: KeySpec): Promise<KeyObject> {
    // EC and ed25519 keys take well under a millisecond: no queue.
    if (spec.type !== 'rsa') return generateKey(spec);
    // RSA key generation grows with about the cube of the size: 2048 = 1, 3072 ~ 3, 4096 ~ 8.
    return this.rsa.run(() => generateKey(spec), Math.max(1, Math.round((spec.bits / 2048) ** 3)));
  }
}
