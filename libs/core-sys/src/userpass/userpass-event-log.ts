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
import { evolve, type UserState } from './userpass.decider';
import {
  USERPASS_EVENT_TYPES,
  userDeletedV1,
  userPasswordSetV1,
  userPoliciesSetV1,
  userStream,
  userWrittenV1,
  type UserpassEvent,
} from './userpass.events';
import { UserpassRepository } from './userpass.repository';

export const userpassEventTypes = Object.values(USERPASS_EVENT_TYPES).map((t) =>
  defineEvent(t.name, t.version, t.schema),
);

const VERSION_OF: Record<UserpassEvent['type'], number> = {
  UserpassUserWritten: USERPASS_EVENT_TYPES.written.version,
  UserpassPasswordSet: USERPASS_EVENT_TYPES.passwordSet.version,
  UserpassPoliciesSet: USERPASS_EVENT_TYPES.policiesSet.version,
  UserpassUserDeleted: USERPASS_EVENT_TYPES.deleted.version,
};

export function toUserpassEvent(e: AppendedEvent): UserpassEvent {
  switch (e.type) {
    case 'UserpassUserWritten':
      return { type: e.type, data: userWrittenV1.parse(e.data) };
    case 'UserpassPasswordSet':
      return { type: e.type, data: userPasswordSetV1.parse(e.data) };
    case 'UserpassPoliciesSet':
      return { type: e.type, data: userPoliciesSetV1.parse(e.data) };
    case 'UserpassUserDeleted':
      return { type: e.type, data: userDeletedV1.parse(e.data) };
    default:
      throw new Error(`not a userpass event: ${e.type}`);
  }
}

/** The userpass user streams of the core_sys event log. */
@Injectable()
export class UserpassEventLog {
  private readonly store: EventStore;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: ServiceRuntime,
    private readonly repo: UserpassRepository,
  ) {
    this.store = new EventStore({
      db: runtime.db,
      schema: runtime.schema,
      cipher: runtime.cipher,
      clock: runtime.clock,
      registry: new EventRegistry(userpassEventTypes),
    });
  }

  /** Appends to the user's stream at `expectedVersion` (0 = new user) and projects in the same transaction. */
  async append(
    mountUuid: string,
    username: string,
    expectedVersion: number,
    events: UserpassEvent[],
  ): Promise<UserState | null> {
    const result = await this.store.append(
      userStream(mountUuid, username),
      events.map((e) => ({ type: e.type, version: VERSION_OF[e.type], data: e.data })),
      { expectedVersion, project: (trx, stored) => this.project(mountUuid, username, trx, stored) },
    );
    return result.projected;
  }

  private async project(
    mountUuid: string,
    username: string,
    trx: AnyTrx,
    stored: AppendedEvent[],
  ): Promise<UserState | null> {
    const last = stored[stored.length - 1];
    const before = await this.repo.find(mountUuid, username, trx);
    let state: UserState | null = before?.state ?? null;
    for (const e of stored) state = evolve(state, toUserpassEvent(e));
    if (state === null) {
      if (before) await this.repo.delete(trx, mountUuid, username);
    } else if (last) {
      await this.repo.save(trx, state, last.streamVersion, before !== undefined);
    }
    return state;
  }
}
