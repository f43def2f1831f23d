import type { AnyTrx, AppendedEvent } from '@coffer/event-store';
import { POLICY_EVENT_SCHEMAS } from './policy.events';
import type { PolicyRepository } from './policy.repository';

/** Applies one append to a policy stream to the read model, in its transaction. */
export async function projectPolicies(
  repo: PolicyRepository,
  trx: AnyTrx,
  events: AppendedEvent[],
): Promise<void> {
  for (const e of events) {
    if (e.type === 'PolicyWritten') {
      const data = POLICY_EVENT_SCHEMAS.PolicyWritten.parse(e.data);
      await repo.upsert(
        trx,
        { name: data.name, policy: data.policy, version: e.streamVersion },
        e.recordedAt,
      );
    } else if (e.type === 'PolicyDeleted') {
      await repo.delete(trx, POLICY_EVENT_SCHEMAS.PolicyDeleted.parse(e.data).name);
    }
  }
}
