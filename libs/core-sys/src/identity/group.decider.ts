import { invalidRequest } from '@coffer/contracts';
import type { GroupEvent } from './group.events';
import { normalisePolicies } from './identity.decider';

export type GroupType = 'internal' | 'external';

export interface GroupAliasState {
  id: string;
  groupId: string;
  mountAccessor: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export interface GroupState {
  id: string;
  name: string;
  type: GroupType;
  metadata: Record<string, string>;
  policies: string[];
  memberEntityIds: string[];
  memberGroupIds: string[];
  alias: GroupAliasState | null;
  createdAt: number;
  updatedAt: number;
  /** Vault's modify_index: one more on every change of the group */
  modifyIndex: number;
}

/** Every group of a namespace, by id. */
export type GroupGraph = ReadonlyMap<string, GroupState>;

/** Vault's cycle text (errCycleDetectedPrefix + the member group id, quoted). */
export const cycleText = (memberGroupId: string): string =>
  `cyclic relationship detected for member group ID ${JSON.stringify(memberGroupId)}`;

const touched = (g: GroupState, at: number, fields: Partial<GroupState>): GroupState => ({
  ...g,
  ...fields,
  updatedAt: at,
  modifyIndex: g.modifyIndex + 1,
});

function withoutEntities(graph: Map<string, GroupState>, ids: ReadonlySet<string>, at: number, add?: string) {
  for (const g of graph.values()) {
    if (!g.memberEntityIds.some((e) => ids.has(e))) continue;
    const kept = g.memberEntityIds.filter((e) => !ids.has(e));
    const memberEntityIds = add === undefined ? kept : [...new Set([...kept, add])].sort();
    graph.set(g.id, touched(g, at, { memberEntityIds }));
  }
}

/** The graph after one event (a new map; unchanged groups keep their objects). */
export function evolveGraph(graph: GroupGraph, event: GroupEvent): Map<string, GroupState> {
  const next = new Map(graph);
  switch (event.type) {
    case 'GroupCreated': {
      const { createdAt, ...fields } = event.data;
      next.set(fields.id, { ...fields, alias: null, createdAt, updatedAt: createdAt, modifyIndex: 1 });
      return next;
    }
    case 'GroupUpdated': {
      const { id, updatedAt, ...fields } = event.data;
      const g = next.get(id);
      if (g) next.set(id, touched(g, updatedAt, fields));
      return next;
    }
    case 'GroupDeleted': {
      const { id } = event.data;
      next.delete(id);
      // The nesting is kept on the parent: a deleted group simply stops being a member.
      for (const g of next.values()) {
        if (g.memberGroupIds.includes(id))
          next.set(g.id, { ...g, memberGroupIds: g.memberGroupIds.filter((m) => m !== id) });
      }
      return next;
    }
    case 'GroupAliasSet': {
      const { groupId, aliasId, ...fields } = event.data;
      for (const g of next.values()) {
        if (g.alias?.id === aliasId && g.id !== groupId)
          next.set(g.id, touched(g, fields.updatedAt, { alias: null }));
      }
      const g = next.get(groupId);
      if (g) next.set(groupId, touched(g, fields.updatedAt, { alias: { id: aliasId, groupId, ...fields } }));
      return next;
    }
    case 'GroupAliasRemoved': {
      const g = next.get(event.data.groupId);
      if (g?.alias?.id === event.data.aliasId)
        next.set(g.id, touched(g, event.data.removedAt, { alias: null }));
      return next;
    }
    case 'GroupEntityMembersRemoved':
      withoutEntities(next, new Set(event.data.entityIds), event.data.at);
      return next;
    case 'GroupEntityMembersMerged':
      withoutEntities(next, new Set(event.data.fromEntityIds), event.data.at, event.data.toEntityId);
      return next;
  }
}

export function foldGraph(graph: GroupGraph, events: readonly GroupEvent[]): Map<string, GroupState> {
  let next = new Map(graph);
  for (const e of events) next = evolveGraph(next, e);
  return next;
}

export function groupByName(graph: GroupGraph, name: string): GroupState | undefined {
  const key = name.toLowerCase();
  for (const g of graph.values()) if (g.name.toLowerCase() === key) return g;
  return undefined;
}

export function groupByAliasId(graph: GroupGraph, aliasId: string): GroupState | undefined {
  for (const g of graph.values()) if (g.alias?.id === aliasId) return g;
  return undefined;
}

/** The groups `id` is nested in (its parents), sorted. */
export function parentIds(graph: GroupGraph, id: string): string[] {
  return [...graph.values()]
    .filter((g) => g.memberGroupIds.includes(id))
    .map((g) => g.id)
    .sort();
}

/**
 * Whether making `memberId` a member of `groupId` closes a loop: a walk down from `memberId`
 * through its member groups reaches `groupId` (Vault's detectCycleDFS).
 */
export function createsCycle(graph: GroupGraph, groupId: string, memberId: string): boolean {
  const visited = new Set<string>();
  const stack = [memberId];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (id === groupId) return true;
    if (visited.has(id)) continue;
    visited.add(id);
    stack.push(...(graph.get(id)?.memberGroupIds ?? []));
  }
  return false;
}

/**
 * The groups of an entity: those it is a member of, and those they are nested in, transitively
 * (Vault's groupsByEntityID). Both sorted by id, `inherited` without the direct ones.
 */
export function entityGroups(
  graph: GroupGraph,
  entityId: string,
): { direct: GroupState[]; inherited: GroupState[] } {
  const direct = [...graph.values()].filter((g) => g.memberEntityIds.includes(entityId));
  const parents = new Map<string, string[]>();
  for (const g of graph.values())
    for (const child of g.memberGroupIds) parents.set(child, [...(parents.get(child) ?? []), g.id]);
  const seen = new Set(direct.map((g) => g.id));
  const inherited: GroupState[] = [];
  const stack = direct.map((g) => g.id);
  while (stack.length > 0) {
    for (const p of parents.get(stack.pop() as string) ?? []) {
      if (seen.has(p)) continue;
      seen.add(p);
      const g = graph.get(p);
      if (g) inherited.push(g);
      stack.push(p);
    }
  }
  const byId = (a: GroupState, b: GroupState) => a.id.localeCompare(b.id);
  return { direct: direct.sort(byId), inherited: inherited.sort(byId) };
}

/** Policies of a group list: Vault's RemoveDuplicatesStable(…, true) then RemoveDuplicates. */
export function normaliseGroupPolicies(policies: readonly string[]): string[] {
  const seen = new Set<string>();
  const stable: string[] = [];
  for (const p of policies) {
    const key = p.trim().toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    stable.push(p);
  }
  return normalisePolicies(stable);
}

/** Fields of a group write that were given (absent = keep). */
export interface GroupInput {
  name?: string;
  type?: string;
  metadata?: Record<string, string>;
  policies?: string[];
  memberEntityIds?: string[];
  memberGroupIds?: string[];
}

export interface GroupWriteCommand {
  graph: GroupGraph;
  /** the group found by id or name (null: create) */
  group: GroupState | null;
  input: GroupInput;
  /** which of the requested member entities exist */
  existingEntities: ReadonlySet<string>;
  newId: string;
  generatedName: string;
  nowMs: number;
}

export interface GroupWriteDecision {
  created: boolean;
  group: GroupState;
  events: GroupEvent[];
}

/** Vault's handleGroupUpdateCommon + sanitizeAndUpsertGroup, in Vault's order of checks. */
export function decideGroupWrite(cmd: GroupWriteCommand): GroupWriteDecision {
  const { input, graph } = cmd;
  const current = cmd.group;
  const id = current?.id ?? cmd.newId;
  const policies =
    input.policies !== undefined ? normaliseGroupPolicies(input.policies) : (current?.policies ?? []);
  if (policies.some((p) => p.toLowerCase() === 'root')) throw invalidRequest('policies cannot contain root');

  let type: string = current?.type ?? '';
  if (input.type !== undefined && input.type !== '') {
    if (type !== '' && input.type !== type) throw invalidRequest('group type cannot be changed');
    type = input.type;
  }
  if (type === '') type = 'internal';
  if (type !== 'internal' && type !== 'external')
    throw invalidRequest(`invalid group type ${JSON.stringify(type)}`);

  let name = current?.name ?? '';
  if (input.name) {
    const holder = groupByName(graph, input.name);
    if (holder && holder.id !== current?.id) throw invalidRequest('group name is already in use');
    name = input.name;
  }
  const metadata = input.metadata ?? current?.metadata ?? {};

  let memberEntityIds = current?.memberEntityIds ?? [];
  if (input.memberEntityIds !== undefined) {
    if (type === 'external')
      throw invalidRequest("member entities can't be set manually for external groups");
    memberEntityIds = dedupeSorted(input.memberEntityIds);
  }
  let memberGroupIds = current?.memberGroupIds ?? [];
  if (input.memberGroupIds !== undefined) {
    if (type === 'external') throw invalidRequest("member groups can't be set for external groups");
  }
  for (const e of input.memberEntityIds !== undefined ? memberEntityIds : []) {
    if (!cmd.existingEntities.has(e)) throw invalidRequest(`invalid entity ID ${JSON.stringify(e)}`);
  }
  if (input.memberGroupIds !== undefined) {
    memberGroupIds = dedupeSorted(input.memberGroupIds);
    for (const m of memberGroupIds) {
      if (!graph.has(m)) throw invalidRequest(`invalid member group ID ${JSON.stringify(m)}`);
      if (current?.memberGroupIds.includes(m)) continue;
      if (m === id)
        throw invalidRequest(`member group ID ${JSON.stringify(id)} is same as the ID of the group`);
      if (current && createsCycle(graph, id, m)) throw invalidRequest(cycleText(m));
    }
  }

  if (!current) {
    const group: GroupState = {
      id,
      name: name || cmd.generatedName,
      type,
      metadata,
      policies,
      memberEntityIds,
      memberGroupIds,
      alias: null,
      createdAt: cmd.nowMs,
      updatedAt: cmd.nowMs,
      modifyIndex: 1,
    };
    const { alias: _a, updatedAt: _u, modifyIndex: _m, ...data } = group;
    return { created: true, group, events: [{ type: 'GroupCreated', data }] };
  }
  // Vault upserts on every write, even an identical one: modify_index and the update time move.
  const fields = { name, metadata, policies, memberEntityIds, memberGroupIds };
  return {
    created: false,
    group: touched(current, cmd.nowMs, fields),
    events: [{ type: 'GroupUpdated', data: { id, ...fields, updatedAt: cmd.nowMs } }],
  };
}

export interface GroupAliasWriteCommand {
  graph: GroupGraph;
  /** the alias being updated (by id), or null to create one */
  alias: GroupAliasState | null;
  name: string;
  mountAccessor: string;
  canonicalId: string;
  /** whether `mountAccessor` names an auth mount, and whether that mount is local */
  mount: { local: boolean } | undefined;
  /** the group alias holding (mountAccessor, name), if any */
  factorsHolder: GroupAliasState | undefined;
  newAliasId: string;
  newGroup: { id: string; name: string };
  nowMs: number;
}

export type GroupAliasWriteDecision =
  { kind: 'noop' } | { kind: 'write'; aliasId: string; groupId: string; events: GroupEvent[] };

/** Vault's handleGroupAliasUpdateCommon. */
export function decideGroupAliasWrite(cmd: GroupAliasWriteCommand): GroupAliasWriteDecision {
  const { alias, graph } = cmd;
  if (!cmd.name) throw invalidRequest('missing alias name');
  if (!cmd.mountAccessor) throw invalidRequest('missing mount_accessor');
  if (
    alias &&
    alias.name === cmd.name &&
    alias.mountAccessor === cmd.mountAccessor &&
    (cmd.canonicalId === '' || alias.groupId === cmd.canonicalId)
  ) {
    return { kind: 'noop' };
  }
  let target: GroupState | undefined;
  if (cmd.canonicalId !== '') {
    target = graph.get(cmd.canonicalId);
    if (!target) throw invalidRequest("invalid group ID given in 'canonical_id'");
    if (target.type !== 'external') throw invalidRequest("alias can't be set on an internal group");
  }
  if (!cmd.mount) throw invalidRequest(`invalid mount accessor ${JSON.stringify(cmd.mountAccessor)}`);
  if (cmd.mount.local)
    throw invalidRequest(`mount accessor ${JSON.stringify(cmd.mountAccessor)} is a local mount`);
  if (cmd.factorsHolder && cmd.factorsHolder.id !== alias?.id) {
    throw invalidRequest('combination of mount and group alias name is already in use');
  }
  const events: GroupEvent[] = [];
  let groupId: string;
  if (target) groupId = target.id;
  else if (alias) groupId = alias.groupId;
  else {
    groupId = cmd.newGroup.id;
    events.push({
      type: 'GroupCreated',
      data: {
        id: groupId,
        name: cmd.newGroup.name,
        type: 'external',
        metadata: {},
        policies: [],
        memberEntityIds: [],
        memberGroupIds: [],
        createdAt: cmd.nowMs,
      },
    });
  }
  const aliasId = alias?.id ?? cmd.newAliasId;
  events.push({
    type: 'GroupAliasSet',
    data: {
      groupId,
      aliasId,
      mountAccessor: cmd.mountAccessor,
      name: cmd.name,
      createdAt: alias?.createdAt ?? cmd.nowMs,
      updatedAt: cmd.nowMs,
    },
  });
  return { kind: 'write', aliasId, groupId, events };
}

function dedupeSorted(ids: readonly string[]): string[] {
  return [...new Set(ids.map((s) => s.trim()).filter((s) => s !== ''))].sort();
}
