import { Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import type { PASSWORD_POLICY_EVENT_TYPES } from './password-policy.events';
import { PasswordPolicyRepository } from './password-policy.repository';

type Events = typeof PASSWORD_POLICY_EVENT_TYPES;

/** A password policy stream's append applied to the read model, in its transaction. */
@Injectable()
export class PasswordPolicyProjection implements Projection<Events, void, string> {
  constructor(private readonly repo: PasswordPolicyRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<Events>[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'PasswordPolicyWritten')
        await this.repo.upsert(trx, e.data.name, e.data.policy, e.recordedAt);
      else await this.repo.delete(trx, e.data.name);
    }
  }
}

/** Password policy writes: `append(name, 'any', events)`. */
export abstract class PasswordPolicyEventLog extends AggregateWriter<Events, void, string> {}
