import type { GroupAliasData, GroupAliasListData, GroupData, GroupListData } from '@coffer/contracts';
import { parentIds, type GroupAliasState, type GroupGraph, type GroupState } from './group.decider';
import type { AliasState } from './identity.decider';
import { aliasView, iso, listOrNull, mapOrNull, withMount, type MountLookup } from './identity.view';

/** Vault's handleGroupReadCommon. */
export function groupView(
  g: GroupState,
  graph: GroupGraph,
  mounts: MountLookup,
  namespaceId = 'root',
): GroupData {
  const alias: GroupData['alias'] = g.alias
    ? withMount<GroupData['alias']>(
        {
          id: g.alias.id,
          canonical_id: g.id,
          mount_accessor: g.alias.mountAccessor,
          metadata: null,
          name: g.alias.name,
          merged_from_canonical_ids: null,
          creation_time: iso(g.alias.createdAt),
          last_update_time: iso(g.alias.updatedAt),
        },
        g.alias.mountAccessor,
        mounts,
      )
    : {};
  return {
    id: g.id,
    name: g.name,
    policies: g.policies,
    member_entity_ids: g.memberEntityIds,
    member_group_ids: listOrNull(g.memberGroupIds),
    parent_group_ids: listOrNull(parentIds(graph, g.id)),
    metadata: mapOrNull(g.metadata),
    creation_time: iso(g.createdAt),
    last_update_time: iso(g.updatedAt),
    modify_index: g.modifyIndex,
    type: g.type,
    namespace_id: namespaceId,
    alias,
  };
}

/** LIST identity/group/id|name: key_info keyed by group id in both. */
export function groupList(
  groups: GroupState[],
  graph: GroupGraph,
  byId: boolean,
  mounts: MountLookup,
): GroupListData {
  const keyInfo: GroupListData['key_info'] = {};
  for (const g of groups) {
    const entry: GroupListData['key_info'][string] = {
      name: g.name,
      num_member_entities: g.memberEntityIds.length,
      num_parent_groups: parentIds(graph, g.id).length,
    };
    if (g.alias) {
      entry.alias = withMount<NonNullable<GroupListData['key_info'][string]['alias']>>(
        { id: g.alias.id, name: g.alias.name, mount_accessor: g.alias.mountAccessor },
        g.alias.mountAccessor,
        mounts,
      );
    }
    keyInfo[g.id] = entry;
  }
  return { keys: groups.map((g) => (byId ? g.id : g.name)), key_info: keyInfo };
}

/** A group alias as an alias of the group (no custom metadata, never merged). */
const asAlias = (a: GroupAliasState): AliasState => ({
  id: a.id,
  canonicalId: a.groupId,
  mountAccessor: a.mountAccessor,
  name: a.name,
  customMetadata: {},
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  mergedFromCanonicalIds: [],
});

/** A group alias read (Vault's handleAliasReadCommon on the group alias table). */
export function groupAliasView(a: GroupAliasState, mounts: MountLookup): GroupAliasData {
  return { ...aliasView(asAlias(a), mounts), custom_metadata: null };
}

export function groupAliasList(aliases: GroupAliasState[], mounts: MountLookup): GroupAliasListData {
  const keyInfo: GroupAliasListData['key_info'] = {};
  for (const a of aliases) {
    keyInfo[a.id] = withMount<GroupAliasListData['key_info'][string]>(
      {
        canonical_id: a.groupId,
        custom_metadata: null,
        metadata: null,
        local: false,
        mount_accessor: a.mountAccessor,
        name: a.name,
      },
      a.mountAccessor,
      mounts,
    );
  }
  return { keys: aliases.map((a) => a.id), key_info: keyInfo };
}
