import { Inject, Injectable } from '@nestjs/common';
import {
  EventRegistry,
  EventStore,
  defineEvent,
  type AnyTrx,
  type ServiceRuntime,
  type AppendedEvent,
} from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../tokens-di';
import { evolve, type EntityState } from './identity.decider';
import {
  entityAliasAddedV1,
  entityAliasRemovedV1,
  entityAliasUpdatedV1,
  entityCreatedV1,
  entityDeletedV1,
  entityStream,
  entityUpdatedV1,
  IDENTITY_EVENT_TYPES,
  type IdentityEvent,
} from './identity.events';
import { IdentityRepository } from './identity.repository';

export const identityEventTypes = Object.values(IDENTITY_EVENT_TYPES).map((t) =>
  defineEvent(t.name, t.version, t.schema),
);

const VERSION_OF: Record<IdentityEvent['type'], number> = {
  EntityCreated: IDENTITY_EVENT_TYPES.entityCreated.version,
  EntityUpdated: IDENTITY_EVENT_TYPES.entityUpdated.version,
  EntityDeleted: IDENTITY_EVENT_TYPES.entityDeleted.version,
  EntityAliasAdded: IDENTITY_EVENT_TYPES.aliasAdded.version,
  EntityAliasUpdated: IDENTITY_EVENT_TYPES.aliasUpdated.version,
  EntityAliasRemoved: IDENTITY_EVENT_TYPES.aliasRemoved.version,
};

export function toIdentityEvent(e: AppendedEvent): IdentityEvent {
  switch (e.type) {
    case 'EntityCreated':
      return { type: e.type, data: entityCreatedV1.parse(e.data) };
    case 'EntityUpdated':
      return { type: e.type, data: entityUpdatedV1.parse(e.data) };
    case 'EntityDeleted':
      return { type: e.type, data: entityDeletedV1.parse(e.data) };
    case 'EntityAliasAdded':
      return { type: e.type, data: entityAliasAddedV1.parse(e.data) };
    case 'EntityAliasUpdated':
      return { type: e.type, data: entityAliasUpdatedV1.parse(e.data) };
    case 'EntityAliasRemoved':
      return { type: e.type, data: entityAliasRemovedV1.parse(e.data) };
    default:
      throw new Error(`not an identity event: ${e.type}`);
  }
}

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
    this.store = new EventStore({
      db: runtime.db,
      schema: runtime.schema,
      cipher: runtime.cipher,
      clock: runtime.clock,
      registry: new EventRegistry(identityEventTypes),
    });
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
    const result = await this.store.append(
      entityStream(entityId),
      events.map((e) => ({ type: e.type, version: VERSION_OF[e.type], data: e.data })),
      { expectedVersion, project: (trx, stored) => this.project(entityId, trx, stored) },
    );
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
