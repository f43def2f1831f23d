import type { ColumnType, Selectable } from 'kysely';
import type { GroupAliasState, GroupState, GroupType } from './group.decider';

type Json<T> = ColumnType<T, string, string>;

export interface IdentityGroupsTable {
  id: string;
  /** "" = root; names are unique per namespace */
  namespace: ColumnType<string, string | undefined, string>;
  name: string;
  /** lower(name): group names are case-insensitive and unique */
  name_key: string;
  type: GroupType;
  metadata: Json<Record<string, string>>;
  policies: Json<string[]>;
  member_entity_ids: Json<string[]>;
  member_group_ids: Json<string[]>;
  created_at: number;
  updated_at: number;
  modify_index: number;
}

export interface IdentityGroupAliasesTable {
  id: string;
  group_id: string;
  mount_accessor: string;
  name: string;
  created_at: number;
  updated_at: number;
}

/** Membership indexes, kept with the group rows: who is in a group, which group is in which. */
export interface IdentityGroupEntityMembersTable {
  group_id: string;
  entity_id: string;
}
export interface IdentityGroupEdgesTable {
  parent_id: string;
  child_id: string;
}

/** The version of each namespace's group-graph stream the rows reflect. */
export interface IdentityGroupGraphsTable {
  namespace: string;
  version: number;
}

export interface IdentityGroupDatabase {
  identity_groups: IdentityGroupsTable;
  identity_group_aliases: IdentityGroupAliasesTable;
  identity_group_entity_members: IdentityGroupEntityMembersTable;
  identity_group_edges: IdentityGroupEdgesTable;
  identity_group_graphs: IdentityGroupGraphsTable;
}

export const GROUP_COLUMNS = [
  'id',
  'name',
  'type',
  'metadata',
  'policies',
  'member_entity_ids',
  'member_group_ids',
  'created_at',
  'updated_at',
  'modify_index',
] as const;
export const GROUP_ALIAS_COLUMNS = [
  'id',
  'group_id',
  'mount_accessor',
  'name',
  'created_at',
  'updated_at',
] as const;

export type GroupRow = Pick<Selectable<IdentityGroupsTable>, (typeof GROUP_COLUMNS)[number]>;
export type GroupAliasRow = Pick<Selectable<IdentityGroupAliasesTable>, (typeof GROUP_ALIAS_COLUMNS)[number]>;

export function rowToGroupAlias(row: GroupAliasRow): GroupAliasState {
  return {
    id: row.id,
    groupId: row.group_id,
    mountAccessor: row.mount_accessor,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function rowToGroup(row: GroupRow, alias: GroupAliasRow | undefined): GroupState {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    metadata: row.metadata,
    policies: row.policies,
    memberEntityIds: row.member_entity_ids,
    memberGroupIds: row.member_group_ids,
    alias: alias ? rowToGroupAlias(alias) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    modifyIndex: row.modify_index,
  };
}

export function groupToRow(g: GroupState, namespace: string) {
  return {
    id: g.id,
    namespace,
    name: g.name,
    name_key: g.name.toLowerCase(),
    type: g.type,
    metadata: JSON.stringify(g.metadata),
    policies: JSON.stringify(g.policies),
    member_entity_ids: JSON.stringify(g.memberEntityIds),
    member_group_ids: JSON.stringify(g.memberGroupIds),
    created_at: g.createdAt,
    updated_at: g.updatedAt,
    modify_index: g.modifyIndex,
  };
}

export function groupAliasToRow(a: GroupAliasState) {
  return {
    id: a.id,
    group_id: a.groupId,
    mount_accessor: a.mountAccessor,
    name: a.name,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
