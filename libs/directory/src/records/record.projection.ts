import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import { SealedState } from '../shared/sealed-state';
import type { DirectoryTrx } from '../shared/directory.table';
import { recordStream, type RECORD_EVENT_TYPES, type RecordKey } from './record.events';
import { RecordRepository } from './record.repository';
import { dueAt, evolve, pendingSince } from './record.state';

type RecordEvents = typeof RECORD_EVENT_TYPES;

/** The record's row: its state folded forward and sealed, in the append's transaction. */
@Injectable()
export class RecordProjection implements Projection<RecordEvents, void, RecordKey> {
  constructor(
    private readonly repo: RecordRepository,
    private readonly sealed: SealedState,
  ) {}

  async apply(trx: DirectoryTrx, events: AppendedOf<RecordEvents>[], key: RecordKey): Promise<void> {
    const stream = recordStream(key);
    const row = await this.repo.get(key.mountUuid, key.kind, key.name, trx);
    let state = row ? this.sealed.open(row.body, stream) : undefined;
    for (const event of events) state = evolve(key.kind, state, event);
    if (!state) {
      if (row) await this.repo.delete(trx, key.mountUuid, key.kind, key.name);
      return;
    }
    await this.repo.upsert(trx, {
      mount_uuid: key.mountUuid,
      kind: key.kind,
      name: key.name,
      body: this.sealed.seal(state, stream),
      stream_version: versionAfter(events),
      due_at: dueAt(state),
      pending_since: pendingSince(state),
    });
  }
}

/** Appends to directory records: `append(recordKey, expectedVersion, events)`. */
export abstract class RecordEventLog extends AggregateWriter<RecordEvents, void, RecordKey> {}
