import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolve, type EntityState } from './identity.decider';
import type { IDENTITY_EVENT_TYPES } from './identity.events';
import { IdentityRepository } from './identity.repository';

type IdentityEvents = typeof IDENTITY_EVENT_TYPES;

export interface IdentityAppendResult {
  before: EntityState | null;
  after: EntityState | null;
}

/** The fold of an entity's stream into the read model, in the append's transaction. */
@Injectable()
export class IdentityProjection implements Projection<IdentityEvents, IdentityAppendResult, string> {
  constructor(private readonly repo: IdentityRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<IdentityEvents>[],
    entityId: string,
  ): Promise<IdentityAppendResult> {
    const before = (await this.repo.entityById(entityId, trx))?.state ?? null;
    let after = before;
    for (const e of events) after = evolve(after, e);
    if (after === null) {
      if (before) await this.repo.deleteEntity(trx, entityId);
    } else if (events.length > 0) {
      await this.repo.saveEntity(trx, before, after, versionAfter(events));
    }
    return { before, after };
  }
}

/** Every identity write: `append(entityId, expectedVersion, events)` (0 = new entity). */
export abstract class IdentityEventLog extends AggregateWriter<
  IdentityEvents,
  IdentityAppendResult,
  string
> {}
