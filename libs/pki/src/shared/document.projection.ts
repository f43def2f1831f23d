import { Injectable } from '@nestjs/common';
import { versionAfter, type AppendedOf, type EventTable, type Projection } from '@coffer/event-store';
import { DocumentRepository, type DocumentKind } from './document.repository';
import type { PkiTrx } from './pki.table';

/**
 * One document's append: where it lives and its state after the events (decided by the service
 * from the events; null removes the row).
 */
export interface DocumentAppend {
  mountUuid: string;
  kind: DocumentKind;
  name: string;
  next: unknown;
}

export { documentStream } from './document.repository';

/** Writes a document's new state in the append's transaction. */
@Injectable()
export class DocumentProjection implements Projection<EventTable, void, DocumentAppend> {
  constructor(private readonly repo: DocumentRepository) {}

  async apply(trx: PkiTrx, events: AppendedOf<EventTable>[], a: DocumentAppend): Promise<void> {
    if (events.length === 0) return;
    if (a.next === null) await this.repo.remove(trx, a.mountUuid, a.kind, a.name);
    else await this.repo.put(trx, a.mountUuid, a.kind, a.name, a.next, versionAfter(events));
  }
}
