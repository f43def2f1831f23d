import { Inject, Injectable } from '@nestjs/common';
import {
  AggregateWriter,
  versionAfter,
  type AppendedOf,
  type Projection,
  type ServiceRuntime,
} from '@coffer/event-store';
import type { ReplicationMode } from '@coffer/contracts/replication';
import { REPLICATION_RUNTIME } from '../replication.di';
import type { ReplicationTrx } from '../replication.table';
import { encodeState } from './replication-state.codec';
import { evolve, type ModeState } from './replication-state.decider';
import type { REPLICATION_STATE_EVENT_TYPES } from './replication-state.events';
import { ReplicationStateRepository } from './replication-state.repository';

type StateEvents = typeof REPLICATION_STATE_EVENT_TYPES;

/** The append's key: the mode, and the state the command was decided on. */
export interface ModeKey {
  mode: ReplicationMode;
  prior: ModeState;
}

/** The mode's row, rewritten whole from the prior state and the new events. */
@Injectable()
export class ReplicationStateProjection implements Projection<StateEvents, ModeState, ModeKey> {
  constructor(
    private readonly repo: ReplicationStateRepository,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  async apply(trx: ReplicationTrx, events: AppendedOf<StateEvents>[], key: ModeKey): Promise<ModeState> {
    const next = events.reduce(evolve, key.prior);
    await this.repo.upsert(trx, {
      mode: key.mode,
      ...encodeState(this.runtime.cipher, next),
      stream_version: versionAfter(events),
    });
    return next;
  }
}

/** Writes of a mode's state: `append({ mode, prior }, expectedVersion, events)`. */
export abstract class ReplicationStateLog extends AggregateWriter<StateEvents, ModeState, ModeKey> {}
