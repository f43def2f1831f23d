import { Inject, Injectable } from '@nestjs/common';
import type { ReplicationMode } from '@coffer/contracts/replication';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { REPLICATION_RUNTIME } from '../replication.di';
import { decodePublicState, decodeState } from './replication-state.codec';
import type { ModeState } from './replication-state.decider';
import type { ReplicationStateEvent } from './replication-state.events';
import { ReplicationStateLog } from './replication-state.projection';
import { ReplicationStateRepository } from './replication-state.repository';

/** Loads a mode's state and runs the state table's commands against it (optimistic append). */
@Injectable()
export class ReplicationStateService {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly repo: ReplicationStateRepository,
    private readonly log: ReplicationStateLog,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
  ) {}

  /** The state with its secrets (needs the keyring). */
  async load(mode: ReplicationMode): Promise<{ state: ModeState; version: number }> {
    const row = await this.repo.get(mode);
    return { state: decodeState(this.runtime.cipher, mode, row), version: row?.stream_version ?? 0 };
  }

  /** The state without secrets (status; served while sealed too). */
  async loadPublic(mode: ReplicationMode): Promise<ModeState> {
    return decodePublicState(mode, (await this.repo.get(mode))?.public_state);
  }

  /**
   * Decides on the current state and appends at the version read, again on a concurrent write;
   * `before` runs once the command is accepted, before its events are appended (side effects
   * that must precede the new state, such as wiping a secondary's copy).
   */
  async command(
    mode: ReplicationMode,
    decide: (state: ModeState) => ReplicationStateEvent[],
    before?: () => Promise<void>,
  ): Promise<ModeState> {
    const next = await retryOnConflict(async () => {
      const { state, version } = await this.load(mode);
      const events = decide(state);
      if (events.length === 0) return state;
      await before?.();
      return this.log.append({ mode, prior: state }, version, events);
    });
    for (const listener of this.listeners) listener();
    return next;
  }

  /** Called after every accepted command (the supervisor re-reads the state at once). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
