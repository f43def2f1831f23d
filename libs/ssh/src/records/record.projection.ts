import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import { SealedJson } from '../shared/sealed-json';
import type { SshTrx } from '../shared/ssh.table';
import { recordStream, type RECORD_EVENT_TYPES, type RecordKey } from './record.events';
import { RecordRepository } from './record.repository';

type RecordEvents = typeof RECORD_EVENT_TYPES;

/** The record's row, its value sealed by the barrier, in the append's transaction. */
@Injectable()
export class RecordProjection implements Projection<RecordEvents, void, RecordKey> {
  constructor(
    private readonly repo: RecordRepository,
    private readonly sealed: SealedJson,
  ) {}

  async apply(trx: SshTrx, events: AppendedOf<RecordEvents>[], key: RecordKey): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    if (last.type === 'SshRecordDeleted') {
      if (key.exists) await this.repo.delete(trx, key.mountUuid, key.kind, key.name);
      return;
    }
    const row = {
      name: key.name,
      body: this.sealed.seal(last.data.value, recordStream(key)),
      stream_version: versionAfter(events),
    };
    if (key.exists) await this.repo.update(trx, key.mountUuid, key.kind, row);
    else await this.repo.insert(trx, { mount_uuid: key.mountUuid, kind: key.kind, ...row });
  }
}

/** Writes of settings records: `append(recordKey, expectedVersion, events)`. */
export abstract class RecordEventLog extends AggregateWriter<RecordEvents, void, RecordKey> {}
