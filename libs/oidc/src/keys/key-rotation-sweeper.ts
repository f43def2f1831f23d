import { Inject, Injectable } from '@nestjs/common';
import { SweepJob } from '@coffer/scheduling';
import { OIDC_OPTIONS, type OidcModuleOptions } from '../oidc.di';
import { SealedJson } from '../shared/sealed-json';
import { OidcKeyService } from './oidc-key.service';

export const DEFAULT_ROTATION_CHECK_INTERVAL_MS = 10_000;

/**
 * Rotation on time, on every replica: the schedule is in the read model (next_rotation_ms), so
 * it survives restarts, and the event store's optimistic concurrency lets one replica win.
 */
@Injectable()
export class OidcKeyRotationSweeper extends SweepJob {
  constructor(
    private readonly keys: OidcKeyService,
    private readonly sealed: SealedJson,
    @Inject(OIDC_OPTIONS) options: OidcModuleOptions,
  ) {
    super(
      'OidcKeyRotation',
      'OIDC key rotation',
      options.rotationCheckIntervalMs ?? DEFAULT_ROTATION_CHECK_INTERVAL_MS,
    );
  }

  sweep(): Promise<number> {
    // a replica without the keyring cannot read keys: it waits for unseal
    if (this.sealed.sealed) return Promise.resolve(0);
    return this.keys.rotateDue();
  }
}
