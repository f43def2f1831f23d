import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { entityGroups, foldGraph } from '../identity/group.decider';
import { GROUP_LOG, ROOT_GRAPH } from '../identity/group.events';
import { evolve as evolveEntity, normalisePolicies, type EntityState } from '../identity/identity.decider';
import { entityStream, IDENTITY_LOG } from '../identity/identity.events';
import { evolve as evolveToken, type TokenState } from '../tokens/token.decider';
import { TOKEN_LOG, tokenStream } from '../tokens/token.events';

export interface IdentityAt {
  /** the entity's own policies and its groups', direct and inherited */
  policies: string[];
  groupIds: string[];
  disabled: boolean;
}

/**
 * Tokens and identities as they stood at an event of the core_sys log, folded from their streams
 * with the aggregates' own evolve functions (token.decider, identity.decider, group.decider).
 */
@Injectable()
export class HistoryFolds {
  constructor(@Inject(CORE_SYS_EVENT_STORE) private readonly store: EventStore) {}

  /** null when no token had that accessor at event `wal` (not yet created, or revoked). */
  async tokenAt(accessor: string, wal: number): Promise<TokenState | null> {
    let state: TokenState | null = null;
    for (const event of await this.store.readStream(tokenStream(accessor))) {
      if (event.wal > wal) break;
      state = evolveToken(state, TOKEN_LOG.decode(event));
    }
    return state;
  }

  /** tokenAt of several tokens, their streams read in one query; absent ones are left out. */
  async tokensAt(accessors: readonly string[], wal: number): Promise<Map<string, TokenState>> {
    const states = new Map<string, TokenState | null>();
    for (const event of await this.store.readStreamsTo(accessors.map(tokenStream), wal)) {
      const accessor = event.stream.slice(tokenStream('').length);
      states.set(accessor, evolveToken(states.get(accessor) ?? null, TOKEN_LOG.decode(event)));
    }
    const out = new Map<string, TokenState>();
    for (const [accessor, state] of states) if (state) out.set(accessor, state);
    return out;
  }

  /** Groups live in one graph (the root's, as GroupService keeps them), whatever the token's namespace. */
  async identityAt(entityId: string, wal: number): Promise<IdentityAt> {
    return (await this.identitiesAt([entityId], wal)).get(entityId) ?? NO_IDENTITY;
  }

  /** identityAt of several entities, the group graph folded once for all of them. */
  async identitiesAt(entityIds: readonly string[], wal: number): Promise<Map<string, IdentityAt>> {
    const out = new Map<string, IdentityAt>();
    const entities: [string, EntityState][] = [];
    for (const entityId of new Set(entityIds)) {
      out.set(entityId, NO_IDENTITY);
      if (entityId === '') continue;
      let entity: EntityState | null = null;
      for (const event of await this.store.readStream(entityStream(entityId))) {
        if (event.wal > wal) break;
        entity = evolveEntity(entity, IDENTITY_LOG.decode(event));
      }
      if (entity) entities.push([entityId, entity]);
    }
    if (entities.length === 0) return out;
    const groupEvents = (await this.store.readStream(GROUP_LOG.streamOf(ROOT_GRAPH)))
      .filter((e) => e.wal <= wal)
      .map((e) => GROUP_LOG.decode(e));
    const graph = foldGraph(new Map(), groupEvents);
    for (const [entityId, entity] of entities) {
      const { direct, inherited } = entityGroups(graph, entity.id);
      const groups = [...direct, ...inherited];
      out.set(entityId, {
        policies: normalisePolicies([...entity.policies, ...groups.flatMap((g) => g.policies)]),
        groupIds: groups.map((g) => g.id),
        disabled: entity.disabled,
      });
    }
    return out;
  }
}

const NO_IDENTITY: IdentityAt = { policies: [], groupIds: [], disabled: false };
