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
  cloudAStream,
  type CLOUD_A_EVENT_TYPES,
  type CloudAEvent,
  type CloudARecordKey,
  type CloudARecordKind,
} from './cloud-a-record.events';
import { CloudARecordRepository } from './cloud-a-record.repository';
import {
  cloudARecordStateSchema,
  evolveCloudA,
  pendingUntil,
  type CloudARecordState,
} from './cloud-a-record.state';

type CloudAEvents = typeof CLOUD_A_EVENT_TYPES;

/** cloud-a's records behind the barrier. */
export class CloudASealed extends CloudRecordSealer<CloudARecordState> {
  constructor(cipher: Cipher) {
    super(cipher, cloudARecordStateSchema);
  }
}

/** The record's row: its state folded forward and sealed, in the append's transaction. */
@Injectable()
export class CloudARecordProjection implements Projection<CloudAEvents, void, CloudARecordKey> {
  private readonly fold: CloudRecordFold<CloudARecordKind, CloudARecordState, CloudAEvent>;

  constructor(repo: CloudARecordRepository, sealer: CloudASealed) {
    this.fold = { repo, sealer, evolve: evolveCloudA, recoverAt: pendingUntil };
  }

  async apply(trx: AnyTrx, events: AppendedOf<CloudAEvents>[], key: CloudARecordKey): Promise<void> {
    await projectCloudRecord(this.fold, trx, key, cloudAStream(key), events, versionAfter(events));
  }
}

/** Appends to cloud-a records: `append(recordKey, expectedVersion, events)`. */
export abstract class CloudARecordEventLog extends AggregateWriter<CloudAEvents, void, CloudARecordKey> {}
