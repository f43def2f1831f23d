import { z } from 'zod';
import { jsonObjectSchema } from '../fields';
import { aliasData } from './core-sys-data.schema';

/**
 * The `data` of the identity group, group-alias, lookup and merge routes, as Vault's
 * identity_store_groups.go / identity_store_group_aliases.go shape them (allow-lists).
 */

const strings = z.array(z.string());
const userMap = jsonObjectSchema;
const aliasMount = { mount_type: z.string().optional(), mount_path: z.string().optional() };

/** The group's alias inside a group read: `{}` when the group has none. */
const groupAliasInGroup = z.object({
  id: z.string().optional(),
  canonical_id: z.string().optional(),
  mount_accessor: z.string().optional(),
  metadata: userMap.nullable().optional(),
  name: z.string().optional(),
  merged_from_canonical_ids: strings.nullable().optional(),
  creation_time: z.string().optional(),
  last_update_time: z.string().optional(),
  ...aliasMount,
});

export const groupData = z.object({
  id: z.string(),
  name: z.string(),
  policies: strings,
  member_entity_ids: strings,
  member_group_ids: strings.nullable(),
  parent_group_ids: strings.nullable(),
  metadata: userMap.nullable(),
  creation_time: z.string(),
  last_update_time: z.string(),
  modify_index: z.number().int(),
  type: z.string(),
  namespace_id: z.string(),
  alias: groupAliasInGroup,
});
export type GroupData = z.input<typeof groupData>;

/** A new group: 200 {id, name}; an update answers 204. */
export const groupCreatedData = z.object({ id: z.string(), name: z.string() });

export const groupListData = z.object({
  keys: strings,
  key_info: z.record(
    z.string(),
    z.object({
      name: z.string(),
      num_member_entities: z.number().int(),
      num_parent_groups: z.number().int(),
      alias: z
        .object({ id: z.string(), name: z.string(), mount_accessor: z.string(), ...aliasMount })
        .optional(),
    }),
  ),
});
export type GroupListData = z.input<typeof groupListData>;

/** A group alias read: an entity alias's shape, without custom metadata. */
export const groupAliasData = aliasData.extend({ custom_metadata: userMap.nullable() });
export type GroupAliasData = z.input<typeof groupAliasData>;

export const groupAliasListData = z.object({
  keys: strings,
  key_info: z.record(
    z.string(),
    z.object({
      canonical_id: z.string(),
      custom_metadata: userMap.nullable(),
      metadata: userMap.nullable(),
      local: z.boolean(),
      mount_accessor: z.string(),
      name: z.string(),
      ...aliasMount,
    }),
  ),
});
export type GroupAliasListData = z.input<typeof groupAliasListData>;
