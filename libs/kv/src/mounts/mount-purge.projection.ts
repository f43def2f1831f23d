import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { KvTrx } from '../shared/kv.table';
import type { MOUNT_PURGE_EVENT_TYPES } from './mount.events';
import { MountPurgeRepository } from './mount-purge.repository';

type MountPurgeEvents = typeof MOUNT_PURGE_EVENT_TYPES;

/** MountDataPurged: every data key and row of the mount, in the append's transaction. */
@Injectable()
export class MountPurgeProjection implements Projection<MountPurgeEvents, void, string> {
  constructor(private readonly repo: MountPurgeRepository) {}

  async apply(trx: KvTrx, _events: AppendedOf<MountPurgeEvents>[], mountUuid: string): Promise<void> {
    await this.repo.purge(trx, mountUuid);
  }
}

/** `append(mountUuid, 'any', [MountDataPurged])`. */
export abstract class MountPurgeEventLog extends AggregateWriter<MountPurgeEvents, void, string> {}
