import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { retryOnConflict, type ServiceRuntime } from '@coffer/event-store';
import { SERVICE_RUNTIME } from '../core-sys.di';
import { groupByName, type GroupGraph } from './group.decider';
import type { GroupEvent } from './group.events';
import { groupGraphKey } from './group.events';
import { GroupEventLog } from './group.projection';
import { GroupRepository, type EntityGroupRow } from './group.repository';
import { IdentityService } from './identity.service';

/** Vault's generated group names: "group_" + 8 random hex digits. */
const generateGroupName = (): string => `group_${randomBytes(4).toString('hex')}`;

/** What a decision on the graph appends, and what the use case answers. */
export interface GraphDecision<T> {
  events: GroupEvent[];
  result: T;
}

/**
 * The group graph of a namespace (each namespace has its own): every write reads it whole, decides, and appends at
 * the version it read, again on a concurrent write. Caches are told after commit: group changes
 * alter entity facts (groups) and token policies of every member, so both are dropped.
 */
@Injectable()
export class GroupService {
  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly repo: GroupRepository,
    private readonly log: GroupEventLog,
    private readonly identity: IdentityService,
  ) {}

  async graph(namespace: string): Promise<GroupGraph> {
    return (await this.repo.graph(groupGraphKey(namespace))).graph;
  }

  async write<T>(
    namespace: string,
    decide: (graph: GroupGraph) => Promise<GraphDecision<T>> | GraphDecision<T>,
  ): Promise<T> {
    const key = groupGraphKey(namespace);
    const outcome = await retryOnConflict(async () => {
      const { graph, version } = await this.repo.graph(key);
      const decision = await decide(graph);
      if (decision.events.length > 0) await this.log.append(key, version, decision.events);
      return decision;
    });
    if (outcome.events.length > 0) await this.identity.announce([], true);
    return outcome.result;
  }

  /**
   * Deleted entities leave their groups (Vault's handleEntityDeleteCommon): those of their own
   * namespace and of any other that holds them.
   */
  async removeEntities(namespace: string, entityIds: string[]): Promise<void> {
    if (entityIds.length === 0) return;
    const holding = new Set([namespace, ...(await this.repo.namespacesHolding(entityIds))]);
    for (const ns of holding) await this.removeEntitiesIn(ns, entityIds);
  }

  private async removeEntitiesIn(namespace: string, entityIds: string[]): Promise<void> {
    await this.write(namespace, (graph) => {
      const member = [...graph.values()].some((g) => g.memberEntityIds.some((e) => entityIds.includes(e)));
      const at = this.now();
      return {
        events: member ? [{ type: 'GroupEntityMembersRemoved', data: { entityIds, at } }] : [],
        result: undefined,
      };
    });
  }

  /** Merged entities' memberships pass to the entity they were merged into, in every namespace. */
  async mergeEntities(namespace: string, fromEntityIds: string[], toEntityId: string): Promise<void> {
    const holding = new Set([namespace, ...(await this.repo.namespacesHolding(fromEntityIds))]);
    for (const ns of holding) await this.mergeEntitiesIn(ns, fromEntityIds, toEntityId);
  }

  private async mergeEntitiesIn(
    namespace: string,
    fromEntityIds: string[],
    toEntityId: string,
  ): Promise<void> {
    await this.write(namespace, (graph) => {
      const member = [...graph.values()].some((g) =>
        g.memberEntityIds.some((e) => fromEntityIds.includes(e)),
      );
      const data = { fromEntityIds, toEntityId, at: this.now() };
      return { events: member ? [{ type: 'GroupEntityMembersMerged', data }] : [], result: undefined };
    });
  }

  /** Deleting a namespace: every group of it goes (with its aliases and memberships). */
  async deleteNamespace(namespace: string): Promise<void> {
    await this.write(namespace, (graph) => {
      const at = this.now();
      const events: GroupEvent[] = [...graph.keys()].map((id) => ({
        type: 'GroupDeleted',
        data: { id, deletedAt: at },
      }));
      return { events, result: undefined };
    });
  }

  groupsOfEntity(entityId: string): Promise<EntityGroupRow[]> {
    return this.repo.groupsOfEntity(entityId);
  }

  /** A generated group name nobody uses yet. */
  freshName(graph: GroupGraph): string {
    for (;;) {
      const name = generateGroupName();
      if (!groupByName(graph, name)) return name;
    }
  }

  now(): number {
    return this.runtime.clock().getTime();
  }
}
