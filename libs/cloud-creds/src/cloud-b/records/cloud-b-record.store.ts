import { Injectable } from '@nestjs/common';
import { cloudBStream, type CloudBEvent, type CloudBRecordKind } from './cloud-b-record.events';
import { CloudBEventLog, CloudBSealed } from './cloud-b-record.projection';
import { CloudBRecordRepository, type CloudBRecordRow } from './cloud-b-record.repository';
import type { CloudBStateOf } from './cloud-b-record.state';

/** A record's state and the stream version it was read at (the expected version of the next append). */
export interface CloudBVersioned<K extends CloudBRecordKind> {
  name: string;
  state: CloudBStateOf<K>;
  version: number;
}

/** Typed reads of cloud-b records and appends at the version read. */
@Injectable()
export class CloudBRecordStore {
  constructor(
    private readonly repo: CloudBRecordRepository,
    private readonly log: CloudBEventLog,
    private readonly sealed: CloudBSealed,
  ) {}

  open<K extends CloudBRecordKind>(mountUuid: string, kind: K, row: CloudBRecordRow): CloudBVersioned<K> {
    const state = this.sealed.open(row.body, cloudBStream({ mountUuid, kind, name: row.name }));
    if (state.kind !== kind) throw new Error(`cloud-b record ${row.name} is not a ${kind}`);
    return { name: row.name, state: state as CloudBStateOf<K>, version: row.stream_version };
  }

  async get<K extends CloudBRecordKind>(
    mountUuid: string,
    kind: K,
    name: string,
  ): Promise<CloudBVersioned<K> | undefined> {
    const row = await this.repo.get(mountUuid, kind, name);
    return row ? this.open(mountUuid, kind, row) : undefined;
  }

  names(mountUuid: string, kind: CloudBRecordKind): Promise<string[]> {
    return this.repo.names(mountUuid, kind);
  }

  /**
   * Appends at `expected`; a concurrent writer makes it throw ConcurrencyError. 0 means "no
   * record": a deleted record's stream goes on from its last version (a role written again).
   */
  async append(
    mountUuid: string,
    kind: CloudBRecordKind,
    name: string,
    expected: number,
    events: readonly CloudBEvent[],
  ): Promise<void> {
    const key = { mountUuid, kind, name };
    const at = expected === 0 ? await this.log.version(key) : expected;
    await this.log.append(key, at, events);
  }
}
