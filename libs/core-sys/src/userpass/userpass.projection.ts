import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolve, type UserState } from './userpass.decider';
import type { USERPASS_EVENT_TYPES, UserKey } from './userpass.events';
import { UserpassRepository } from './userpass.repository';

type UserpassEvents = typeof USERPASS_EVENT_TYPES;

/** The fold of a user's stream into the read model, in the append's transaction. */
@Injectable()
export class UserpassProjection implements Projection<UserpassEvents, UserState | null, UserKey> {
  constructor(private readonly repo: UserpassRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<UserpassEvents>[],
    user: UserKey,
  ): Promise<UserState | null> {
    const before = await this.repo.find(user.mountUuid, user.username, trx);
    let state: UserState | null = before?.state ?? null;
    for (const e of events) state = evolve(state, e);
    if (state === null) {
      if (before) await this.repo.delete(trx, user.mountUuid, user.username);
    } else if (events.length > 0) {
      await this.repo.save(trx, state, versionAfter(events), before !== undefined);
    }
    return state;
  }
}

/** Every userpass write: `append({ mountUuid, username }, expectedVersion, events)` (0 = new user). */
export abstract class UserpassEventLog extends AggregateWriter<UserpassEvents, UserState | null, UserKey> {}
