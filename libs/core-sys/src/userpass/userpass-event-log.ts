import { Inject, Injectable } from '@nestjs/common';
import type { AnyTrx, AppendedEvent, EventStore, ServiceRuntime } from '@coffer/event-store';
import { defineAggregateLog } from '../shared/aggregate-log';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { evolve, type UserState } from './userpass.decider';
import { USERPASS_EVENT_TYPES, userStream, type UserpassEvent } from './userpass.events';
import { UserpassRepository } from './userpass.repository';

const USERPASS_LOG = defineAggregateLog('a userpass event', USERPASS_EVENT_TYPES);

export const userpassEventTypes = USERPASS_LOG.eventTypes;

export const toUserpassEvent = (e: AppendedEvent): UserpassEvent => USERPASS_LOG.decode(e);

/** The userpass user streams of the core_sys event log. */
@Injectable()
export class UserpassEventLog {
  private readonly store: EventStore;

  constructor(
    @Inject(SERVICE_RUNTIME) runtime: ServiceRuntime,
    private readonly repo: UserpassRepository,
  ) {
    this.store = USERPASS_LOG.createStore(runtime);
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
      USERPASS_LOG.toNewEvents(events),
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
