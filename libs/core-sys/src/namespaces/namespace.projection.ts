import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { NAMESPACE_EVENT_TYPES } from './namespace.events';
import { NamespaceRepository } from './namespace.repository';

type Events = typeof NAMESPACE_EVENT_TYPES;

/** Applies one append to the namespaces/tree stream to the read model. */
@Injectable()
export class NamespaceProjection implements Projection<Events, number> {
  constructor(private readonly repo: NamespaceRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<Events>[]): Promise<number> {
    for (const event of events) {
      switch (event.type) {
        case 'NamespaceCreated':
          await this.repo.insert(
            trx,
            { ...event.data, deleting: false, unlockKeyHash: null },
            event.recordedAt,
          );
          break;
        case 'NamespaceMetadataSet':
          await this.repo.setMetadata(trx, event.data.path, event.data.customMetadata);
          break;
        case 'NamespaceDeletionStarted':
          await this.repo.markDeleting(trx, event.data.path);
          break;
        case 'NamespaceDeleted':
          await this.repo.delete(trx, event.data.path);
          break;
        case 'NamespaceApiLocked':
          await this.repo.setUnlockKeyHash(trx, event.data.path, event.data.unlockKeyHash);
          break;
        case 'NamespaceApiUnlocked':
          await this.repo.setUnlockKeyHash(trx, event.data.path, null);
          break;
      }
    }
    const revision = versionAfter(events);
    if (revision > 0) await this.repo.setRevision(trx, revision);
    return revision;
  }
}

/** Every change of the tree: `append(undefined, revision, events)` on the one stream. */
export abstract class NamespaceEventLog extends AggregateWriter<Events, number> {}
