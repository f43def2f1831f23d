import { Injectable } from '@nestjs/common';
import type { Cipher } from '@coffer/barrier';
import {
  AggregateWriter,
  versionAfter,
  type AnyTrx,
  type AppendedOf,
  type Projection,
} from '@coffer/event-store';
import {
  CloudRecordSealer,
  projectCloudRecord,
  type CloudRecordFold,
} from '../../shared/cloud-record.projection';
import {
  cloudBStream,
  type CLOUD_B_EVENT_TYPES,
  type CloudBEvent,
  type CloudBRecordKey,
  type CloudBRecordKind,
} from './cloud-b-record.events';
import { CloudBRecordRepository } from './cloud-b-record.repository';
import {
  cloudBPendingSince,
  cloudBStateSchema,
  evolveCloudB,
  type CloudBState,
} from './cloud-b-record.state';

type CloudBEvents = typeof CLOUD_B_EVENT_TYPES;

/** cloud-b's records behind the barrier. */
export class CloudBSealed extends CloudRecordSealer<CloudBState> {
  constructor(cipher: Cipher) {
    super(cipher, cloudBStateSchema);
  }
}

/** The record's row: its state folded forward and sealed, in the append's transaction. */
@Injectable()
export class CloudBRecordProjection implements Projection<CloudBEvents, void, CloudBRecordKey> {
  private readonly fold: CloudRecordFold<CloudBRecordKind, CloudBState, CloudBEvent>;

  constructor(repo: CloudBRecordRepository, sealer: CloudBSealed) {
    this.fold = {
      repo,
      sealer,
      evolve: (_kind, state, event) => evolveCloudB(state, event),
      recoverAt: cloudBPendingSince,
    };
  }

  async apply(trx: AnyTrx, events: AppendedOf<CloudBEvents>[], key: CloudBRecordKey): Promise<void> {
    await projectCloudRecord(this.fold, trx, key, cloudBStream(key), events, versionAfter(events));
  }
}

/** Appends to cloud-b records: `append(key, expectedVersion, events)`. */
export abstract class CloudBEventLog extends AggregateWriter<CloudBEvents, void, CloudBRecordKey> {}
