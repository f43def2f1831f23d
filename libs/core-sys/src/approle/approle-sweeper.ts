import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { ApproleSalt } from './approle-salt';
import { ApproleSecretIdService } from './approle-secret-id.service';

/** Vault tidies expired secret ids every minute. */
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 100;

/**
 * Destroys expired secret ids (they already refuse login; this drops their rows). Runs on every
 * replica; a destroy is an append at the version read, so replicas sweeping the same one settle.
 */
@Injectable()
export class ApproleSecretIdSweeper extends SweepJob {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly secretIds: ApproleSecretIdService,
    private readonly salt: ApproleSalt,
    private readonly standby: DrStandby,
  ) {
    super('ApproleSecretIdSweeper', 'secret id sweep', SWEEP_INTERVAL_MS);
  }

  /** One pass; answers how many secret ids it destroyed. */
  override async sweep(): Promise<number> {
    if (this.runtime.cipher.sealed) {
      // The salts must not outlive the keyring in memory.
      this.salt.forget();
      return 0;
    }
    if (await this.standby.standing()) return 0;
    return this.secretIds.destroyExpired(SWEEP_BATCH);
  }
}
