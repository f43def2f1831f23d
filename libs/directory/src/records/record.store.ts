import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@coffer/event-store';
import { DIRECTORY_EVENT_STORE } from '../directory.di';
import { SealedState } from '../shared/sealed-state';
import { recordStream, type RecordEvent, type RecordKind } from './record.events';
import { RecordEventLog } from './record.projection';
import { RecordRepository, type RecordRow } from './record.repository';
import type { StateOf } from './record.state';

/** A record's state and the stream version it was read at (the expected version of the next append). */
export interface Versioned<K extends RecordKind> {
  name: string;
  state: StateOf<K>;
  version: number;
}

/** Typed reads of records and appends at the version read. */
@Injectable()
export class RecordStore {
  constructor(
    private readonly repo: RecordRepository,
    private readonly log: RecordEventLog,
    private readonly sealed: SealedState,
    @Inject(DIRECTORY_EVENT_STORE) private readonly events: Pick<EventStore, 'streamVersion'>,
  ) {}

  open<K extends RecordKind>(mountUuid: string, kind: K, row: RecordRow): Versioned<K> {
    const state = this.sealed.open(row.body, recordStream({ mountUuid, kind, name: row.name }));
    if (state.kind !== kind) throw new Error(`directory record ${row.name} is not a ${kind}`);
    return { name: row.name, state: state as StateOf<K>, version: row.stream_version };
  }

  async get<K extends RecordKind>(
    mountUuid: string,
    kind: K,
    name: string,
  ): Promise<Versioned<K> | undefined> {
    const row = await this.repo.get(mountUuid, kind, name);
    return row ? this.open(mountUuid, kind, row) : undefined;
  }

  async getMany<K extends RecordKind>(
    mountUuid: string,
    kind: K,
    names: readonly string[],
  ): Promise<Versioned<K>[]> {
    const rows = await this.repo.getMany(mountUuid, kind, names);
    return rows.map((row) => this.open(mountUuid, kind, row));
  }

  names(mountUuid: string, kind: RecordKind): Promise<string[]> {
    return this.repo.names(mountUuid, kind);
  }

  /**
   * Whether this cluster may change `record` (rotate its password, check it in): its stream in this
   * cluster's own log has reached the row's version (beyond it: a concurrent append, whose
   * conflict the caller retries). A record replayed from a primary has not (its stream is in the
   * replica log, its row at the primary's version) until a promotion folds it in:
   * on a secondary the primary rotates it, and a rotation here would change the directory behind
   * the primary's back before its append failed.
   */
  async writableHere(
    mountUuid: string,
    kind: RecordKind,
    record: Pick<Versioned<RecordKind>, 'name' | 'version'>,
  ): Promise<boolean> {
    const own = await this.events.streamVersion(recordStream({ mountUuid, kind, name: record.name }));
    return own >= record.version;
  }

  /** Appends at `expected` (0: a new record); a concurrent writer makes it throw ConcurrencyError. */
  async append(
    mountUuid: string,
    kind: RecordKind,
    name: string,
    expected: number,
    events: readonly RecordEvent[],
  ): Promise<void> {
    await this.log.append({ mountUuid, kind, name }, expected, events);
  }
}
