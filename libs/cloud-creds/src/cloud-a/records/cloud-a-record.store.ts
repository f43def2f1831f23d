import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@coffer/event-store';
import { CLOUD_CREDS_EVENT_STORE } from '../../cloud-creds.di';
import { cloudAStream, type CloudAEvent, type CloudARecordKind } from './cloud-a-record.events';
import { CloudARecordEventLog, CloudASealed } from './cloud-a-record.projection';
import { CloudARecordRepository, type CloudARecordRow } from './cloud-a-record.repository';
import type { CloudAStateOf } from './cloud-a-record.state';

/** A record's state and the stream version it was read at (the expected version of the next append). */
export interface CloudAVersioned<K extends CloudARecordKind> {
  name: string;
  state: CloudAStateOf<K>;
  version: number;
}

/** Typed reads of cloud-a records and appends at the version read. */
@Injectable()
export class CloudARecordStore {
  constructor(
    private readonly repo: CloudARecordRepository,
    private readonly log: CloudARecordEventLog,
    private readonly sealed: CloudASealed,
    @Inject(CLOUD_CREDS_EVENT_STORE) private readonly events: EventStore,
  ) {}

  open<K extends CloudARecordKind>(mountUuid: string, kind: K, row: CloudARecordRow): CloudAVersioned<K> {
    const state = this.sealed.open(row.body, cloudAStream({ mountUuid, kind, name: row.name }));
    if (state.kind !== kind) throw new Error(`cloud-a record ${row.name} is not a ${kind}`);
    return { name: row.name, state: state as CloudAStateOf<K>, version: row.stream_version };
  }

  async get<K extends CloudARecordKind>(
    mountUuid: string,
    kind: K,
    name: string,
  ): Promise<CloudAVersioned<K> | undefined> {
    const row = await this.repo.get(mountUuid, kind, name);
    return row ? this.open(mountUuid, kind, row) : undefined;
  }

  /** The version to append at: the record's, or a deleted record's stream version (its log goes on). */
  async versionOf(
    mountUuid: string,
    kind: CloudARecordKind,
    name: string,
    record?: { version: number },
  ): Promise<number> {
    return record?.version ?? this.events.streamVersion(cloudAStream({ mountUuid, kind, name }));
  }

  names(mountUuid: string, kind: CloudARecordKind): Promise<string[]> {
    return this.repo.names(mountUuid, kind);
  }

  /** Appends at `expected` (0: a new record); a concurrent writer makes it throw ConcurrencyError. */
  async append(
    mountUuid: string,
    kind: CloudARecordKind,
    name: string,
    expected: number,
    events: readonly CloudAEvent[],
  ): Promise<number> {
    await this.log.append({ mountUuid, kind, name }, expected, events);
    return expected + events.length;
  }
}
