import { Inject, Injectable } from '@nestjs/common';
import type { AnyTrx, AppendedEvent, EventStore, ServiceRuntime } from '@coffer/event-store';
import { defineAggregateLog } from '../shared/aggregate-log';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { evolve, type EntityState } from './identity.decider';
import { entityStream, IDENTITY_EVENT_TYPES, type IdentityEvent } from './identity.events';
import { IdentityRepository } from './identity.repository';

const IDENTITY_LOG = defineAggregateLog('an identity event', IDENTITY_EVENT_TYPES);

export const identityEventTypes = IDENTITY_LOG.eventTypes;

export const toIdentityEvent = (e: AppendedEvent): IdentityEvent => IDENTITY_LOG.decode(e);

export interface IdentityAppendResult {
  before: EntityState | null;
  after: EntityState | null;
}

/** The entity streams of the core_sys event log: every identity write goes through here. */
@Injectable()
export class IdentityEventLog {
  private readonly store: EventStore;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: ServiceRuntime,
    private readonly repo: IdentityRepository,
  ) {
    this.store = IDENTITY_LOG.createStore(runtime);
  }

  /**
   * Appends to `entity/<id>` at `expectedVersion` (0 = new entity), projecting the fold of the
   * stream into the read model in the same transaction.
   */
  async append(
    entityId: string,
    expectedVersion: number,
    events: IdentityEvent[],
  ): Promise<IdentityAppendResult> {
    const result = await this.store.append(entityStream(entityId), IDENTITY_LOG.toNewEvents(events), {
      expectedVersion,
      project: (trx, stored) => this.project(entityId, trx, stored),
    });
    return result.projected;
  }

  private async project(
    entityId: string,
    trx: AnyTrx,
    stored: AppendedEvent[],
  ): Promise<IdentityAppendResult> {
    const last = stored[stored.length - 1];
    const before = (await this.repo.entityById(entityId, trx))?.state ?? null;
    let after = before;
    for (const e of stored) after = evolve(after, toIdentityEvent(e));
    if (after === null) {
      if (before) await this.repo.deleteEntity(trx, entityId);
    } else if (last) {
      await this.repo.saveEntity(trx, before, after, last.streamVersion);
    }
    return { before, after };
  }
}
