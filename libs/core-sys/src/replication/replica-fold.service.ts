import { Inject, Injectable } from '@nestjs/common';
import type { ReplicaFoldEvent, ReplicaFoldResponse, ReplicationMode } from '@coffer/contracts/replication';
import {
  planStreamFolds,
  versionAfter,
  type AggregateWriter,
  type AppendedEvent,
  type EventStore,
  type StreamFold,
} from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import type { CoreSysTrx } from '../core-sys.table';
import { MOUNTS_LOG, MOUNTS_STREAM, type MOUNT_EVENT_TYPES } from '../mounts/mounts.events';
import { MountsRepository } from '../mounts/mounts.repository';
import { TOKEN_SALT_LOG } from '../tokens/token.events';
import { asInheritedSalt, foldable, mountTableFold } from './replica-fold.decider';
import { ReplicaFoldRepository } from './replica-fold.repository';
import { ReplicaSealedRepository } from './replica-sealed.repository';

/**
 * Promotion: what this cluster replayed from its former primary (the replica log, projected into
 * its read models) goes into its own core-sys log, so that its own log alone gives the state it
 * serves and the secondaries that follow it next (update-primary) re-sync all of it from that log.
 * The mount table as a whole (mountTableFold), then each replicated stream this cluster did not
 * write itself with the former primary's events, in WAL order, at this cluster's versions
 * (planStreamFolds); the read model already holds them, so the appends only record their
 * progress, and the rows' versions are set to the new stream versions afterwards. Every step is
 * idempotent: a promotion interrupted halfway folds the rest when it is retried.
 */
@Injectable()
export class ReplicaFoldService {
  private readonly mountLog: AggregateWriter<typeof MOUNT_EVENT_TYPES, number>;

  constructor(
    @Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore,
    private readonly folds: ReplicaFoldRepository,
    private readonly mounts: MountsRepository,
    private readonly sealed: ReplicaSealedRepository,
  ) {
    // the rows are served already: the append moves the table's revision only
    this.mountLog = MOUNTS_LOG.writer(store, {
      apply: async (trx, events) => {
        const revision = versionAfter(events);
        await mounts.setRevision(trx as CoreSysTrx, revision);
        return revision;
      },
    });
  }

  async position(): Promise<ReplicaFoldResponse> {
    return { foldedThrough: await this.folds.position(), appended: 0 };
  }

  /** Folds the next rows of the replica log (WAL order, after the position), up to `through`. */
  async fold(
    mode: ReplicationMode,
    events: readonly ReplicaFoldEvent[],
    through: number,
  ): Promise<ReplicaFoldResponse> {
    // first, so that a follower replaying this log has the mounts before their users and roles
    let appended = await this.foldMountTable();
    const served = new Set((await this.mounts.snapshot()).mounts.map((m) => m.uuid));
    const candidates = events.filter((e) => foldable(e, mode, served)).map(asInheritedSalt);
    const streams = [...new Set(candidates.map((e) => e.stream))];
    const plans = planStreamFolds(
      candidates,
      await this.folds.folded(streams),
      await this.folds.ownVersions(streams),
    );
    // submitted together, so the store's group commit takes them in a few transactions, in this
    // order (each stream's append stands alone: one that fails leaves the others, and the retry)
    await Promise.all(
      plans.map((plan) =>
        this.store.append(
          plan.stream,
          plan.events.map((e) => ({ type: e.type, version: e.schemaVersion, data: e.data })),
          {
            expectedVersion: plan.expectedVersion,
            project: (trx, appended) => this.recordFold(trx as CoreSysTrx, plan, appended),
          },
        ),
      ),
    );
    appended += plans.reduce((n, plan) => n + plan.events.length, 0);
    // every candidate, not only this call's appends: a retry after a crash realigns what it folded
    await this.folds.realign(streams);
    await this.folds.advance(through);
    return { foldedThrough: await this.folds.position(), appended };
  }

  /**
   * In the append's transaction: the progress, and a folded token salt next to the replicated
   * ones (where token lookups find it; a wipe keeps it, its stream being in this cluster's log).
   */
  private async recordFold(
    trx: CoreSysTrx,
    plan: StreamFold<ReplicaFoldEvent>,
    appended: AppendedEvent[],
  ): Promise<void> {
    await this.folds.markFolded(trx, plan.stream, plan.foldedTo);
    for (const e of appended)
      if (TOKEN_SALT_LOG.eventTypes.some((t) => t.name === e.type))
        await this.sealed.save(trx, plan.stream, TOKEN_SALT_LOG.decode(e).data.salt);
  }

  private async foldMountTable(): Promise<number> {
    const own = (await this.store.readStream(MOUNTS_STREAM)).map((e) => MOUNTS_LOG.decode(e));
    const events = mountTableFold(own, (await this.mounts.snapshot()).mounts);
    if (events.length === 0) return 0;
    await this.mountLog.append(undefined, own.length, events);
    return events.length;
  }
}
