import { Injectable } from '@nestjs/common';
import { AggregateWriter, versionAfter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { evolveRole, type TokenRoleState } from './token-role.decider';
import type { TOKEN_ROLE_EVENT_TYPES } from './token-role.events';
import { TokenRoleRepository } from './token-role.repository';

type TokenRoleEvents = typeof TOKEN_ROLE_EVENT_TYPES;

/** The fold of a role's stream into the read model, in the append's transaction. */
@Injectable()
export class TokenRoleProjection implements Projection<TokenRoleEvents, TokenRoleState | null, string> {
  constructor(private readonly repo: TokenRoleRepository) {}

  async apply(
    trx: CoreSysTrx,
    events: AppendedOf<TokenRoleEvents>[],
    name: string,
  ): Promise<TokenRoleState | null> {
    const before = await this.repo.find(name, trx);
    let state: TokenRoleState | null = before?.state ?? null;
    for (const e of events) state = evolveRole(state, e);
    if (state === null) {
      if (before) await this.repo.delete(trx, name);
    } else if (events.length > 0) {
      await this.repo.save(trx, state, versionAfter(events));
    }
    return state;
  }
}

/** Every role write: `append(name, expectedVersion, events)` (0 = new role). */
export abstract class TokenRoleEventLog extends AggregateWriter<
  TokenRoleEvents,
  TokenRoleState | null,
  string
> {}
