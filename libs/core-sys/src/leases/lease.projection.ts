import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolve, type LeaseState } from './lease.decider';
import type { LEASE_EVENT_TYPES } from './lease.events';
import { LeaseRepository } from './lease.repository';

type LeaseEvents = typeof LEASE_EVENT_TYPES;

/** The fold of a lease's stream into the read model, in the append's transaction. */
@Injectable()
export class LeaseProjection implements Projection<LeaseEvents, LeaseState | null, string> {
  constructor(private readonly repo: LeaseRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<LeaseEvents>[],
    leaseId: string,
  ): Promise<LeaseState | null> {
    const before = await this.repo.find(leaseId, trx);
    let state: LeaseState | null = before?.state ?? null;
    for (const e of events) state = evolve(state, e);
    if (state === null) {
      if (before) await this.repo.delete(trx, leaseId);
    } else if (events.length > 0) {
      await this.repo.save(trx, state, versionAfter(events), before !== undefined);
    }
    return state;
  }
}

/** Every lease write: `append(leaseId, expectedVersion, events)` (0 = new lease). */
export abstract class LeaseEventLog extends AggregateWriter<LeaseEvents, LeaseState | null, string> {}
