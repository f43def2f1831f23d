import type { KeyObject } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { generateKey, type KeySpec } from '../crypto/keys';
import { KeygenQueue } from '../crypto/keygen-queue';
import { LowPriorityKeygen } from '../crypto/low-priority-keygen';
import { PKI_OPTIONS, type PkiModuleOptions } from '../pki.di';

/**
 * New keys for issue and CA generation; RSA goes through the replica's admission queue to a
 * low-priority thread.
 */
@Injectable()
export class KeyFactory implements OnModuleDestroy {
  private readonly rsa: KeygenQueue;
  private readonly rsaThread = new LowPriorityKeygen();

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
    const cost = Math.max(1, Math.round((spec.bits / 2048) ** 3));
    return this.rsa.run(() => this.rsaThread.generateRsa(spec.bits), cost);
  }

  onModuleDestroy(): Promise<void> {
    return this.rsaThread.close();
  }
}
