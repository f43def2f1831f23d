import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { SENTINEL_POLICY_EVENT_TYPES, SentinelPolicyKey } from './sentinel-policy.events';
import { SentinelPolicyRepository } from './sentinel-policy.repository';

type SentinelPolicyEvents = typeof SENTINEL_POLICY_EVENT_TYPES;

/** Applies one append to an RGP/EGP stream to the read model, in its transaction. */
@Injectable()
export class SentinelPolicyProjection implements Projection<SentinelPolicyEvents, void, SentinelPolicyKey> {
  constructor(private readonly repo: SentinelPolicyRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<SentinelPolicyEvents>[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'SentinelPolicyWritten') {
        await this.repo.upsert(trx, { ...e.data, version: e.streamVersion }, e.recordedAt);
      } else {
        await this.repo.delete(trx, e.data.kind, e.data.name);
      }
    }
  }
}

/** Every RGP/EGP write: `append({kind, name}, 'any', events)` (last writer wins, as ACL policies). */
export abstract class SentinelPolicyEventLog extends AggregateWriter<
  SentinelPolicyEvents,
  void,
  SentinelPolicyKey
> {}
