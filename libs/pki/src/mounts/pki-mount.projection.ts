import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import { DocumentRepository } from '../shared/document.repository';
import type { PkiTrx } from '../shared/pki.table';
import type { PKI_MOUNT_EVENT_TYPES } from './pki-mount.events';

type PkiMountEvents = typeof PKI_MOUNT_EVENT_TYPES;

/** PkiMountPurged: every read-model row of the mount, in the append's transaction. */
@Injectable()
export class PkiMountProjection implements Projection<PkiMountEvents, void, string> {
  constructor(private readonly repo: DocumentRepository) {}

  async apply(trx: PkiTrx, _events: AppendedOf<PkiMountEvents>[], mountUuid: string): Promise<void> {
    await this.repo.purgeMount(trx, mountUuid);
  }
}

/** `append(mountUuid, 'any', [PkiMountPurged])`. */
export abstract class PkiMountEventLog extends AggregateWriter<PkiMountEvents, void, string> {}
