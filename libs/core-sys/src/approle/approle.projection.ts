import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolveRole, evolveSecretId, type RoleState, type SecretIdState } from './approle.decider';
import type {
  APPROLE_ROLE_EVENT_TYPES,
  APPROLE_SECRET_ID_EVENT_TYPES,
  RoleKey,
  SecretIdKey,
} from './approle.events';
import { ApproleRepository } from './approle.repository';

type RoleEvents = typeof APPROLE_ROLE_EVENT_TYPES;
type SecretIdEvents = typeof APPROLE_SECRET_ID_EVENT_TYPES;

/** The fold of a role's stream into the read model, in the append's transaction. */
@Injectable()
export class ApproleRoleProjection implements Projection<RoleEvents, RoleState | null, RoleKey> {
  constructor(private readonly repo: ApproleRepository) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<RoleEvents>[], key: RoleKey): Promise<RoleState | null> {
    const before = await this.repo.role(key.mountUuid, key.roleName, trx);
    let state: RoleState | null = before?.state ?? null;
    for (const e of events) state = evolveRole(state, e);
    if (state === null) {
      if (before) await this.repo.deleteRole(trx, key.mountUuid, key.roleName);
    } else if (events.length > 0) {
      await this.repo.saveRole(trx, state, versionAfter(events), before !== undefined);
    }
    return state;
  }
}

/**
 * The fold of a secret id's stream: the row goes when the secret id is destroyed or its last use
 * is spent, in the same transaction as the event, so a use is counted exactly once.
 */
@Injectable()
export class ApproleSecretIdProjection implements Projection<
  SecretIdEvents,
  SecretIdState | null,
  SecretIdKey
> {
  constructor(private readonly repo: ApproleRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<SecretIdEvents>[],
    key: SecretIdKey,
  ): Promise<SecretIdState | null> {
    const before = await this.repo.secretId(key.mountUuid, key.hmac, trx);
    let state: SecretIdState | null = before?.state ?? null;
    for (const e of events) state = evolveSecretId(state, e);
    if (state === null) {
      if (before) await this.repo.deleteSecretId(trx, key.mountUuid, key.hmac);
    } else if (events.length > 0) {
      await this.repo.saveSecretId(trx, state, versionAfter(events), before !== undefined);
    }
    return state;
  }
}

/** Every role write: `append({ mountUuid, roleName }, expectedVersion, events)` (0 = new role). */
export abstract class ApproleRoleEventLog extends AggregateWriter<RoleEvents, RoleState | null, RoleKey> {}

/** Every secret id write: `append({ mountUuid, hmac }, expectedVersion, events)`. */
export abstract class ApproleSecretIdEventLog extends AggregateWriter<
  SecretIdEvents,
  SecretIdState | null,
  SecretIdKey
> {}
