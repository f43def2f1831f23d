import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby, IntervalLoop } from '@coffer/scheduling';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { CoreSysDb } from '../core-sys.table';
import { SealLeadership } from '../seal/seal-leadership';
import { SealRepository } from '../seal/seal.repository';
import { LeaseRepository } from './lease.repository';
import { LeaseService } from './lease.service';

export interface LeaseManagerSettings {
  /** how often the active manager looks for due leases */
  intervalMs: number;
  /** leases revoked per pass */
  batchSize: number;
  /** how often a standby replica tries to become the manager, and the active one checks its lock */
  leaderRetryMs: number;
}

export const LEASE_MANAGER_SETTINGS = Symbol('LEASE_MANAGER_SETTINGS');
export const DEFAULT_LEASE_MANAGER_SETTINGS: LeaseManagerSettings = {
  intervalMs: 1000,
  batchSize: 100,
  leaderRetryMs: 2000,
};

/**
 * The lease manager: revokes leases when they expire. Exactly one core-sys replica runs it at a
 * time, elected by a Postgres session advisory lock (SealLeadership with its own key). It keeps
 * nothing in memory: each pass reads what is due from the read model, so a restart or a new
 * manager loses nothing, and each revocation is an append at the version it read, so a lease
 * is revoked once. A failing engine is retried with back-off, then the lease is irrevocable.
 */
@Injectable()
export class LeaseManager implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LeaseManager');
  private readonly loop: IntervalLoop;
  #leadership: SealLeadership | undefined;

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(LEASE_MANAGER_SETTINGS) private readonly settings: LeaseManagerSettings,
    private readonly db: CoreSysDb,
    private readonly seal: SealRepository,
    private readonly repo: LeaseRepository,
    private readonly leases: LeaseService,
    private readonly standby: DrStandby,
  ) {
    this.loop = new IntervalLoop({
      name: 'lease expiry',
      intervalMs: settings.intervalMs,
      run: () => this.pass(),
      // Never lease data: only what went wrong.
      onError: (error) => this.logger.warn(`lease expiry pass failed: ${(error as Error).message}`),
    });
  }

  /** Whether this replica is the cluster's active lease manager. */
  get active(): boolean {
    return this.#leadership?.isLeader ?? false;
  }

  async onApplicationBootstrap(): Promise<void> {
    const embedded = (await this.seal.storageType()) === 'pglite';
    this.#leadership = new SealLeadership(this.db, embedded, {
      lockKey: 'coffer.core-sys.lease-manager',
      retryMs: this.settings.leaderRetryMs,
      heartbeatMs: this.settings.leaderRetryMs,
      onChange: (active) => this.logger.log(active ? 'lease manager active' : 'lease manager standby'),
      onError: (error) => this.logger.warn(`lease manager election: ${(error as Error).message}`),
    });
    await this.#leadership.start();
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.#leadership?.stop();
  }

  /** One pass (active manager, unsealed); answers how many leases it revoked. */
  async pass(): Promise<number> {
    if (!this.active || this.runtime.cipher.sealed) return 0;
    // a DR secondary's leases are the primary's: revoking one here would ask the engine to revoke
    // credentials the primary still manages
    if (await this.standby.standing()) return 0;
    let revoked = 0;
    for (const leaseId of await this.repo.due(this.runtime.clock().getTime(), this.settings.batchSize)) {
      try {
        if (await this.leases.revokeNow(leaseId, 'expired', false)) revoked += 1;
      } catch {
        // recorded on the lease (attempts, next try, irrevocable): the next passes retry it
      }
    }
    return revoked;
  }
}
