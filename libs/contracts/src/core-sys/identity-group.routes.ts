import { z } from 'zod';
import { engineContract, type RouteDef } from '../routes';
import { fieldString, fieldStringList, fieldStringMap } from './core-sys-fields.schema';
import { noData } from './core-sys-data.schema';
import {
  groupAliasData,
  groupAliasListData,
  groupCreatedData,
  groupData,
  groupListData,
} from './identity-group-data.schema';

/**
 * Identity groups (internal: members set by hand; external: members follow the group's alias)
 * and group aliases. A group's policies apply to the tokens of its member entities and of the
 * members of every group nested in it.
 */

export const identityGroupBodySchema = z.object({
  id: fieldString('ID of the group; if set, updates that group'),
  name: fieldString('Name of the group (generated when absent)'),
  type: fieldString("Type of the group, 'internal' or 'external' (default internal)"),
  metadata: fieldStringMap('Metadata to associate with the group', 'failed to parse metadata: '),
  policies: fieldStringList('Policies tied to the group'),
  member_group_ids: fieldStringList('Group IDs to be assigned as group members'),
  member_entity_ids: fieldStringList('Entity IDs to be assigned as group members'),
});
export type IdentityGroupBody = z.output<typeof identityGroupBodySchema>;

export const identityGroupAliasBodySchema = z.object({
  id: fieldString('ID of the group alias; if set, updates that alias'),
  name: fieldString('Name of the group alias: the group name in the auth method'),
  mount_accessor: fieldString('Accessor of the auth mount the alias belongs to'),
  canonical_id: fieldString('ID of the (external) group the alias belongs to'),
});
export type IdentityGroupAliasBody = z.output<typeof identityGroupAliasBodySchema>;

const idParams = z.object({ id: z.string().default('') }).prefault({});
const nameParams = z.object({ name: z.string().default('') }).prefault({});
const groupBody = identityGroupBodySchema.prefault({});
const groupAliasBody = identityGroupAliasBodySchema.prefault({});

export const identityGroupContracts = {
  groupWrite: engineContract('core.identity.group-write', { body: groupBody, data: groupCreatedData }),
  groupByIdRead: engineContract('core.identity.group-id-read', { params: idParams, data: groupData }),
  groupByIdWrite: engineContract('core.identity.group-id-write', {
    params: idParams,
    body: groupBody,
    data: groupCreatedData,
  }),
  groupByIdDelete: engineContract('core.identity.group-id-delete', { params: idParams, data: noData }),
  groupByIdList: engineContract('core.identity.group-id-list', { data: groupListData }),
  groupByNameRead: engineContract('core.identity.group-name-read', { params: nameParams, data: groupData }),
  groupByNameWrite: engineContract('core.identity.group-name-write', {
    params: nameParams,
    body: groupBody,
    data: groupCreatedData,
  }),
  groupByNameDelete: engineContract('core.identity.group-name-delete', { params: nameParams, data: noData }),
  groupByNameList: engineContract('core.identity.group-name-list', { data: groupListData }),
  groupAliasWrite: engineContract('core.identity.group-alias-write', {
    body: groupAliasBody,
    data: z.object({ id: z.string(), canonical_id: z.string() }),
  }),
  groupAliasByIdRead: engineContract('core.identity.group-alias-id-read', {
    params: idParams,
    data: groupAliasData,
  }),
  groupAliasByIdWrite: engineContract('core.identity.group-alias-id-write', {
    params: idParams,
    body: groupAliasBody,
    data: z.object({ id: z.string(), canonical_id: z.string() }),
  }),
  groupAliasByIdDelete: engineContract('core.identity.group-alias-id-delete', {
    params: idParams,
    data: noData,
  }),
  groupAliasByIdList: engineContract('core.identity.group-alias-id-list', { data: groupAliasListData }),
};

const c = identityGroupContracts;
/** Group writes change what tokens may do: the gateway drops its resolved tokens at once. */
const tokens = ['tokens'] as const;

export const identityGroupRouteDefs: RouteDef[] = [
  {
    pattern: 'group',
    replicated: true,
    synopsis: 'Create a group, or update the one with the given id or name.',
    description: 'Answers {id, name} when a new group was created, 204 on update.',
    operations: { update: { contract: c.groupWrite, summary: 'Create or update a group' } },
    invalidates: tokens,
  },
  {
    pattern: 'group/id',
    synopsis: 'List groups by id.',
    operations: { list: { contract: c.groupByIdList, summary: 'List group ids' } },
  },
  {
    pattern: 'group/id/:id',
    replicated: true,
    synopsis: 'Read, update or delete a group by id.',
    operations: {
      read: { contract: c.groupByIdRead, summary: 'Read a group' },
      update: { contract: c.groupByIdWrite, summary: 'Update a group' },
      delete: { contract: c.groupByIdDelete, summary: 'Delete a group' },
    },
    invalidates: tokens,
  },
  {
    pattern: 'group/name',
    synopsis: 'List groups by name.',
    operations: { list: { contract: c.groupByNameList, summary: 'List group names' } },
  },
  {
    pattern: 'group/name/:name*',
    replicated: true,
    synopsis: 'Read, create/update or delete a group by name.',
    operations: {
      read: { contract: c.groupByNameRead, summary: 'Read a group' },
      update: { contract: c.groupByNameWrite, summary: 'Create or update a group' },
      delete: { contract: c.groupByNameDelete, summary: 'Delete a group' },
    },
    invalidates: tokens,
  },
  {
    pattern: 'group-alias',
    replicated: true,
    synopsis: 'Create a group alias, or update the one with the given id.',
    operations: { update: { contract: c.groupAliasWrite, summary: 'Create or update a group alias' } },
    invalidates: tokens,
  },
  {
    pattern: 'group-alias/id',
    synopsis: 'List group aliases by id.',
    operations: { list: { contract: c.groupAliasByIdList, summary: 'List group alias ids' } },
  },
  {
    pattern: 'group-alias/id/:id',
    replicated: true,
    synopsis: 'Read, update or delete a group alias by id.',
    operations: {
      read: { contract: c.groupAliasByIdRead, summary: 'Read a group alias' },
      update: { contract: c.groupAliasByIdWrite, summary: 'Update a group alias' },
      delete: { contract: c.groupAliasByIdDelete, summary: 'Delete a group alias' },
    },
    invalidates: tokens,
  },
];
