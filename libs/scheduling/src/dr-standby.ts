import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DomainError } from '@coffer/contracts';
import {
  replicationModes,
  replicationModesChanged,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import { CachedValue, noReplicaError, serviceOf, type Subscription, type Transport } from '@coffer/transport';

/** a safety net for a missed broadcast, as the gateway's */
const MODES_MAX_AGE_MS = 5_000;
const MODES_TIMEOUT_MS = 2_000;
/** what the transport answers when no replica of the replication service exists at all */
const NO_REPLICATION_SERVICE = noReplicaError(serviceOf(replicationModes.subject)).message;

/**
 * Whether this cluster is a DR secondary (a demoted primary is one too). There, as on Vault's DR
 * secondaries, nothing expires, rotates or is swept: the read models hold the primary's tokens,
 * leases and data, the primary revokes what expires and streams it, and a revocation decided
 * here would fork the replicated state (or revoke a lease's credentials twice). Background jobs
 * that change replicated state ask `standing()` before each pass; after a promotion the
 * replication service's broadcast drops the cached answer, so they resume at once.
 */
export class DrStandby implements OnModuleInit, OnModuleDestroy {
  readonly #modes: CachedValue<ReplicationModes | 'absent' | 'unknown'>;
  #subscription: Subscription | undefined;
  /** the last answer said DR secondary: a replication service gone since is down, not absent */
  #wasSecondary = false;

  constructor(private readonly transport: Transport) {
    this.#modes = new CachedValue(() => this.#load(), MODES_MAX_AGE_MS);
  }

  onModuleInit(): void {
    this.#subscription = this.transport.subscribe(replicationModesChanged, () => this.#modes.invalidate());
  }

  onModuleDestroy(): void {
    this.#subscription?.unsubscribe();
  }

  /**
   * True while this cluster is a DR secondary, and while that cannot be told (the replication
   * service does not answer in time, or no replica of it runs after it said DR secondary):
   * skipping a pass is harmless, running one on a DR secondary is not. Where no replication
   * service has answered since this process started, there is none: nothing replicates.
   */
  async standing(): Promise<boolean> {
    const modes = await this.#modes.get();
    if (modes === 'unknown' || modes === 'absent') {
      // asked again at the next pass (a replication service may start after this process)
      this.#modes.invalidate();
      return modes === 'unknown' || this.#wasSecondary;
    }
    this.#wasSecondary = modes.dr === 'secondary';
    return this.#wasSecondary;
  }

  /**
   * True while this cluster takes its replicated state from a primary: a DR secondary
   * (`standing()`), or a performance secondary, whose replicated state only its primary changes
   * (Vault's OIDC key rotation and built-in resources); as `standing()` when that cannot be told.
   */
  async replicating(): Promise<boolean> {
    if (await this.standing()) return true;
    const modes = await this.#modes.get();
    return typeof modes === 'object' && modes.performance === 'secondary';
  }

  /**
   * True while this cluster is known to be a performance secondary (a login's entity is then its
   * primary's to make); false when it is not, or cannot be told (it then makes it itself).
   */
  async performanceSecondary(): Promise<boolean> {
    const modes = await this.#modes.get();
    if (modes === 'unknown' || modes === 'absent') {
      this.#modes.invalidate();
      return false;
    }
    return modes.performance === 'secondary';
  }

  async #load(): Promise<ReplicationModes | 'absent' | 'unknown'> {
    try {
      return await this.transport.request(replicationModes, {}, { timeoutMs: MODES_TIMEOUT_MS });
    } catch (error) {
      return error instanceof DomainError && error.message === NO_REPLICATION_SERVICE ? 'absent' : 'unknown';
    }
  }
}
