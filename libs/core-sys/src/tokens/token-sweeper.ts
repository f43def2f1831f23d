import { Inject, Injectable } from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { TokenRepository } from './token.repository';
import { TokenRevocationService } from './token-revocation.service';
import { TokenSalt } from './token-salt';

export interface TokenSweepSettings {
  /** how often each replica looks for tokens to revoke */
  intervalMs: number;
  /**
   * How long a used-up token survives its last use before it is revoked (children, cubbyhole):
   * the request that spent the last use must be able to finish, e.g. a one-use token reading its
   * cubbyhole. Longer than any request may take.
   */
  exhaustedGraceMs: number;
  /** tokens revoked per category per sweep */
  batchSize: number;
}

export const TOKEN_SWEEP_SETTINGS = Symbol('TOKEN_SWEEP_SETTINGS');
export const DEFAULT_TOKEN_SWEEP_SETTINGS: TokenSweepSettings = {
  intervalMs: 1000,
  exhaustedGraceMs: 60_000,
  batchSize: 100,
};

/**
 * Revokes what must die without anybody asking: expired tokens, used-up tokens after their
 * grace, and tokens whose parent is gone. Runs on every replica; revocations are idempotent
 * appends at a known stream version, so replicas sweeping the same token do not conflict.
 */
@Injectable()
export class TokenSweeper extends SweepJob {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: TokenRepository,
    private readonly revocation: TokenRevocationService,
    private readonly salt: TokenSalt,
    @Inject(TOKEN_SWEEP_SETTINGS) private readonly settings: TokenSweepSettings,
    private readonly standby: DrStandby,
  ) {
    super('TokenSweeper', 'token sweep', settings.intervalMs);
  }

  /** One pass; answers how many tokens it revoked. */
  override async sweep(): Promise<number> {
    if (this.runtime.cipher.sealed) {
      // Nothing may be written while sealed, and the salt must not outlive the keyring in memory.
      this.salt.forget();
      return 0;
    }
    // a DR secondary's tokens are the primary's: it revokes them and streams the revocations
    if (await this.standby.standing()) return 0;
    const nowMs = this.runtime.clock().getTime();
    const { batchSize } = this.settings;
    let count = 0;
    for (const accessor of await this.repo.expired(nowMs, batchSize)) {
      count += (await this.revocation.revokeTree(accessor, 'expired')).accessors.length;
    }
    for (const accessor of await this.repo.exhaustedBefore(
      nowMs - this.settings.exhaustedGraceMs,
      batchSize,
    )) {
      count += (await this.revocation.revokeTree(accessor, 'uses_exhausted')).accessors.length;
    }
    for (const accessor of await this.repo.dangling(batchSize)) {
      count += (await this.revocation.revokeTree(accessor, 'parent_revoked')).accessors.length;
    }
    return count;
  }
}
