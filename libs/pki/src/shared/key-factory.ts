import type { KeyObject } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { generateKey, type KeySpec } from '../crypto/keys';
import { LowPriorityKeygen } from '../crypto/low-priority-keygen';
import { RsaKeySupply } from '../crypto/rsa-key-supply';
import { PKI_OPTIONS, type PkiModuleOptions } from '../pki.di';

/**
 * New keys for issue and CA generation; RSA comes from the replica's key supply (admission
 * control and a small pool) fed by one low-priority thread.
 */
@Injectable()
export class KeyFactory implements OnModuleDestroy {
  private readonly rsa: RsaKeySupply;
  private readonly rsaThread = new LowPriorityKeygen();

  constructor(@Inject(PKI_OPTIONS) options: PkiModuleOptions) {
    // One key at a time per replica: a key generation holds a core for ~150 ms, and with two at
    // once a 2-core node had no core left for the other services (KV p99 under RSA load 12 -> 31 ms).
    // Scale RSA throughput with replicas. A request waits at most 5 s (half the gateway's engine
    // timeout) or is refused with 429 at once; 8 ready 2048-bit keys are ~1.2 s of idle CPU.
    this.rsa = new RsaKeySupply((bits) => this.rsaThread.generateRsa(bits), {
      queueLimit: options.keygenQueueLimit ?? 32,
      maxWaitMs: options.keygenMaxWaitMs ?? 9000,
      poolCost: options.rsaPoolCost ?? 8,
    });
  }

  generate(spec: KeySpec): Promise<KeyObject> {
    // EC and ed25519 keys take well under a millisecond: no queue.
    if (spec.type !== 'rsa') return generateKey(spec);
    return this.rsa.take(spec.bits);
  }

  onModuleDestroy(): Promise<void> {
    this.rsa.close();
    return this.rsaThread.close();
  }
}
