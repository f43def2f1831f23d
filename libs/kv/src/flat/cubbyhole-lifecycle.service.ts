import { Inject, Injectable } from '@nestjs/common';
import { coreTokenAlive } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { DrStandby, SweepJob } from '@coffer/scheduling';
import { KV_OPTIONS, KV_RUNTIME, type KvModuleOptions } from '../kv.di';
import { Vacuum } from '../shared/vacuum';
import { CubbyholeEventLog } from './cubbyhole.projection';
import { FlatRepository } from './flat.repository';

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
const DEFAULT_SWEEP_BATCH = 500;

type Reason = 'token_revoked' | 'token_gone';

/**
 * A token's cubbyhole dies with the token: at once on the token-revoked broadcast, and by a
 * periodic sweep that asks core-sys which owners are still alive, so an expired token or a
 * missed broadcast never leaves data behind.
 */
@Injectable()
export class CubbyholeLifecycleService extends SweepJob {
  constructor(
    @Inject(KV_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(KV_OPTIONS) private readonly options: KvModuleOptions,
    private readonly repo: FlatRepository,
    private readonly log: CubbyholeEventLog,
    private readonly vacuum: Vacuum,
    private readonly standby: DrStandby,
  ) {
    super('kv.cubbyhole', 'cubbyhole sweep', options.cubbyholeSweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  }

  async tokensRevoked(tokenRefs: readonly string[]): Promise<void> {
    if (await this.standby.standing()) return;
    let destroyed = false;
    for (const ref of tokenRefs) destroyed = (await this.destroy(ref, 'token_revoked')) || destroyed;
    if (destroyed) await this.vacuum.request();
  }

  /** One pass over every cubbyhole owner; resolves when done (the timer runs it in the background). */
  override async sweep(): Promise<number> {
    // a DR secondary's cubbyholes are the primary's, replayed: the primary destroys them (a
    // performance secondary's are its own tokens', destroyed here)
    if (await this.standby.standing()) return 0;
    const batch = this.options.cubbyholeSweepBatchSize ?? DEFAULT_SWEEP_BATCH;
    let after = '';
    let destroyed = 0;
    for (;;) {
      const owners = await this.repo.owners(after, batch);
      if (owners.length === 0) break;
      const { alive } = await this.runtime.transport.request(coreTokenAlive, { tokenRefs: owners });
      const live = new Set(alive);
      for (const ref of owners) {
        if (!live.has(ref) && (await this.destroy(ref, 'token_gone'))) destroyed++;
      }
      after = owners[owners.length - 1] ?? after;
      if (owners.length < batch) break;
    }
    if (destroyed > 0) await this.vacuum.request();
    return destroyed;
  }

  /** Appends CubbyholeDestroyed when the token has data; true when something was destroyed. */
  private async destroy(tokenRef: string, reason: Reason): Promise<boolean> {
    if (tokenRef === '' || !(await this.repo.ownerHasData(tokenRef))) return false;
    await this.log.append(tokenRef, 'any', [{ type: 'CubbyholeDestroyed', data: { reason } }]);
    return true;
  }
}
