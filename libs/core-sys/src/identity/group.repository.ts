import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { GroupGraph, GroupState } from './group.decider';
import { namespaceOfGraph } from './group.events';
import {
  GROUP_ALIAS_COLUMNS,
  GROUP_COLUMNS,
  groupAliasToRow,
  groupToRow,
  rowToGroup,
  type GroupAliasRow,
} from './group.table';

export interface VersionedGraph {
  graph: GroupGraph;
  version: number;
}

/** A group of an entity, as token policies and entity facts need it. */
export interface EntityGroupRow {
  id: string;
  name: string;
  /** the group's namespace path ("" root): it may be another than the entity's */
  namespace: string;
  policies: string[];
  direct: boolean;
}

/** All SQL of the group read model. */
@Injectable()
export class GroupRepository {
  constructor(private readonly db: CoreSysDb) {}

  /** Every group of the namespace's graph (`key`, see groupGraphKey) and its stream version. */
  async graph(key: string, trx?: CoreSysTrx): Promise<VersionedGraph> {
    const db = this.db.of(trx);
    const namespace = namespaceOfGraph(key);
    const head = await db
      .selectFrom('identity_group_graphs')
      .select('version')
      .where('namespace', '=', key)
      .executeTakeFirst();
    const rows = await db
      .selectFrom('identity_groups')
      .select(GROUP_COLUMNS)
      .where('namespace', '=', namespace)
      .execute();
    const aliases = await db
      .selectFrom('identity_group_aliases as a')
      .innerJoin('identity_groups as g', 'g.id', 'a.group_id')
      .select(GROUP_ALIAS_COLUMNS.map((c) => `a.${c}` as const))
      .where('g.namespace', '=', namespace)
      .execute();
    const byGroup = new Map<string, GroupAliasRow>(aliases.map((a) => [a.group_id, a]));
    const graph = new Map<string, GroupState>(rows.map((r) => [r.id, rowToGroup(r, byGroup.get(r.id))]));
    return { graph, version: head?.version ?? 0 };
  }

  /** The namespaces with groups holding any of these entities (a group may hold any namespace's). */
  async namespacesHolding(entityIds: readonly string[]): Promise<string[]> {
    if (entityIds.length === 0) return [];
    const rows = await this.db
      .of()
      .selectFrom('identity_group_entity_members as m')
      .innerJoin('identity_groups as g', 'g.id', 'm.group_id')
      .select('g.namespace')
      .distinct()
      .where('m.entity_id', 'in', [...entityIds])
      .execute();
    return rows.map((r) => r.namespace).sort();
  }

  /**
   * The groups of an entity, direct and inherited through nesting, in one recursive query: this
   * runs on every token resolution the gateway has not cached.
   */
  async groupsOfEntity(entityId: string): Promise<EntityGroupRow[]> {
    const rows = await this.db
      .of()
      .withRecursive('reach(id, direct)', (db) =>
        db
          .selectFrom('identity_group_entity_members')
          .select(['group_id as id', sql<boolean>`true`.as('direct')])
          .where('entity_id', '=', entityId)
          .union(
            db
              .selectFrom('identity_group_edges as e')
              .innerJoin('reach as r', 'r.id', 'e.child_id')
              .select(['e.parent_id as id', sql<boolean>`false`.as('direct')]),
          ),
      )
      .selectFrom('reach')
      .innerJoin('identity_groups as g', 'g.id', 'reach.id')
      .select(['g.id', 'g.name', 'g.namespace', 'g.policies', 'reach.direct'])
      .execute();
    const byId = new Map<string, EntityGroupRow>();
    for (const r of rows) {
      const seen = byId.get(r.id);
      const direct = r.direct === true;
      if (!seen)
        byId.set(r.id, { id: r.id, name: r.name, namespace: r.namespace, policies: r.policies, direct });
      else if (direct) seen.direct = true;
    }
    return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  // --- projection writes (inside the append transaction) ---

  async saveGraph(
    trx: CoreSysTrx,
    key: string,
    before: GroupGraph,
    after: GroupGraph,
    version: number,
  ): Promise<void> {
    const db = this.db.of(trx);
    for (const [id, old] of before) {
      if (after.has(id)) continue;
      await this.removeGroupRows(trx, id, old.alias?.id);
    }
    // Deletions first, then inserts: a moved alias or a reused name must not collide.
    for (const [id, g] of after) {
      const old = before.get(id);
      if (old === g) continue;
      if (old?.alias && old.alias.id !== g.alias?.id)
        await db.deleteFrom('identity_group_aliases').where('id', '=', old.alias.id).execute();
    }
    for (const [id, g] of after) {
      const old = before.get(id);
      if (old === g) continue;
      const row = groupToRow(g, namespaceOfGraph(key));
      const { id: _id, ...rest } = row;
      if (old) await db.updateTable('identity_groups').set(rest).where('id', '=', id).execute();
      else await db.insertInto('identity_groups').values(row).execute();
      await this.syncMembership(trx, g, old);
      if (g.alias) {
        const aliasRow = groupAliasToRow(g.alias);
        const { id: _aid, ...aliasRest } = aliasRow;
        await db
          .insertInto('identity_group_aliases')
          .values(aliasRow)
          .onConflict((oc) => oc.column('id').doUpdateSet(aliasRest))
          .execute();
      }
    }
    await db
      .insertInto('identity_group_graphs')
      .values({ namespace: key, version })
      .onConflict((oc) => oc.column('namespace').doUpdateSet({ version }))
      .execute();
  }

  private async removeGroupRows(trx: CoreSysTrx, id: string, aliasId: string | undefined): Promise<void> {
    const db = this.db.of(trx);
    if (aliasId !== undefined)
      await db.deleteFrom('identity_group_aliases').where('id', '=', aliasId).execute();
    await db.deleteFrom('identity_group_entity_members').where('group_id', '=', id).execute();
    await db.deleteFrom('identity_group_edges').where('parent_id', '=', id).execute();
    await db.deleteFrom('identity_group_edges').where('child_id', '=', id).execute();
    await db.deleteFrom('identity_groups').where('id', '=', id).execute();
  }

  private async syncMembership(trx: CoreSysTrx, g: GroupState, old: GroupState | undefined): Promise<void> {
    const db = this.db.of(trx);
    if (old?.memberEntityIds !== g.memberEntityIds) {
      await db.deleteFrom('identity_group_entity_members').where('group_id', '=', g.id).execute();
      if (g.memberEntityIds.length > 0)
        await db
          .insertInto('identity_group_entity_members')
          .values(g.memberEntityIds.map((entity_id) => ({ group_id: g.id, entity_id })))
          .execute();
    }
    if (old?.memberGroupIds !== g.memberGroupIds) {
      await db.deleteFrom('identity_group_edges').where('parent_id', '=', g.id).execute();
      if (g.memberGroupIds.length > 0)
        await db
          .insertInto('identity_group_edges')
          .values(g.memberGroupIds.map((child_id) => ({ parent_id: g.id, child_id })))
          .execute();
    }
  }
}
