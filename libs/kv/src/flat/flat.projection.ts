import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { KvTrx } from '../shared/kv.table';
import type { FLAT_EVENT_TYPES, FlatAppend } from './flat.events';
import { FlatRepository } from './flat.repository';

type FlatEvents = typeof FLAT_EVENT_TYPES;

/**
 * The read model of one unversioned secret, in the append's transaction: a write stores the row
 * and its new data key and erases the previous key; a delete removes both.
 */
@Injectable()
export class FlatProjection implements Projection<FlatEvents, void, FlatAppend> {
  constructor(private readonly repo: FlatRepository) {}

  async apply(trx: KvTrx, events: AppendedOf<FlatEvents>[], a: FlatAppend): Promise<void> {
    for (const event of events) {
      if (event.type === 'SecretDeleted') {
        if (a.previousKeyId !== null) await this.repo.deleted(trx, a.scope, a.path, a.previousKeyId);
        continue;
      }
      if (a.sealed?.keyId !== event.data.keyId)
        throw new Error('kv projection: missing data key of a written secret');
      await this.repo.written(
        trx,
        a.scope,
        a.path,
        {
          keyId: a.sealed.keyId,
          wrapped: a.sealed.wrappedKey,
          ciphertext: a.sealed.ciphertext,
          streamVersion: versionAfter(events),
        },
        a.previousKeyId,
      );
    }
  }
}

/** Writes of kv v1 and cubbyhole secrets: `append(flatAppend, expectedVersion, events)`. */
export abstract class FlatEventLog extends AggregateWriter<FlatEvents, void, FlatAppend> {}
