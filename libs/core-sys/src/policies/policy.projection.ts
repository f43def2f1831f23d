import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { POLICY_EVENT_TYPES } from './policy.events';
import { PolicyRepository } from './policy.repository';

type PolicyEvents = typeof POLICY_EVENT_TYPES;

/** Applies one append to a policy stream to the read model, in its transaction. */
@Injectable()
export class PolicyProjection implements Projection<PolicyEvents, void, string> {
  constructor(private readonly repo: PolicyRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<PolicyEvents>[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'PolicyWritten') {
        await this.repo.upsert(
          trx,
          { name: e.data.name, policy: e.data.policy, version: e.streamVersion },
          e.recordedAt,
        );
      } else {
        await this.repo.delete(trx, e.data.name);
      }
    }
  }
}

/** Every policy write: `append(name, 'any', events)` (last writer wins, as in Vault). */
export abstract class PolicyEventLog extends AggregateWriter<PolicyEvents, void, string> {}
