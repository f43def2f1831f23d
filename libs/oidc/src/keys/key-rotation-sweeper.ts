import { Inject, Injectable } from '@nestjs/common';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { OIDC_OPTIONS, type OidcModuleOptions } from '../oidc.di';
import { SealedJson } from '../shared/sealed-json';
import { OidcKeyService } from './oidc-key.service';

export const DEFAULT_ROTATION_CHECK_INTERVAL_MS = 10_000;

/**
 * Rotation on time, on every replica: the schedule is in the read model (next_rotation_ms), so
 * it survives restarts, and the event store's optimistic concurrency lets one replica win.
 * Only on a primary (as Vault): a secondary's keys are the primary's, rotated there and replayed.
 */
@Injectable()
export class OidcKeyRotationSweeper extends SweepJob {
  constructor(
    private readonly keys: OidcKeyService,
    private readonly sealed: SealedJson,
    private readonly standby: DrStandby,
    @Inject(OIDC_OPTIONS) options: OidcModuleOptions,
  ) {
    super(
      'OidcKeyRotation',
      'OIDC key rotation',
      options.rotationCheckIntervalMs ?? DEFAULT_ROTATION_CHECK_INTERVAL_MS,
    );
  }

  async sweep(): Promise<number> {
    // a replica without the keyring cannot read keys: it waits for unseal
    if (this.sealed.sealed) return 0;
    if (await this.standby.replicating()) return 0;
    return this.keys.rotateDue();
  }
}
