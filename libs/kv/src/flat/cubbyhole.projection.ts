import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { KvTrx } from '../shared/kv.table';
import type { CUBBYHOLE_EVENT_TYPES } from './flat.events';
import { FlatRepository } from './flat.repository';

type CubbyholeEvents = typeof CUBBYHOLE_EVENT_TYPES;

/** A destroyed cubbyhole: every secret and data key of the token, in every mount. */
@Injectable()
export class CubbyholeProjection implements Projection<CubbyholeEvents, void, string> {
  constructor(private readonly repo: FlatRepository) {}

  async apply(trx: KvTrx, _events: AppendedOf<CubbyholeEvents>[], tokenRef: string): Promise<void> {
    await this.repo.ownerDestroyed(trx, tokenRef);
  }
}

/** `append(tokenRef, 'any', [CubbyholeDestroyed])`. */
export abstract class CubbyholeEventLog extends AggregateWriter<CubbyholeEvents, void, string> {}
