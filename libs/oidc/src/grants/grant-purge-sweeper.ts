import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { SweepJob } from '@coffer/scheduling';
import { OIDC_RUNTIME } from '../oidc.di';
import { OidcGrantRepository } from './grant.repository';

const PURGE_INTERVAL_MS = 60_000;

/** Drops expired codes and access tokens from the read model (any replica; deletes are idempotent). */
@Injectable()
export class GrantPurgeSweeper extends SweepJob {
  constructor(
    private readonly grants: OidcGrantRepository,
    @Inject(OIDC_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
  ) {
    super('OidcGrantPurge', 'OIDC grant purge', PURGE_INTERVAL_MS);
  }

  sweep(): Promise<number> {
    return this.grants.purgeExpired(this.runtime.clock().getTime());
  }
}
