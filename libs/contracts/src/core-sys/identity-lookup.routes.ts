import { z } from 'zod';
import { engineContract, type RouteDef } from '../routes';
import { fieldBool, fieldString, fieldStringList } from './core-sys-fields.schema';
import { entityData, noData } from './core-sys-data.schema';
import { groupData } from './identity-group-data.schema';

/** identity/lookup/entity|group, identity/entity/merge and identity/entity/batch-delete. */

export const identityLookupBodySchema = z.object({
  id: fieldString('ID to look up'),
  name: fieldString('Name to look up'),
  alias_id: fieldString('ID of one of its aliases'),
  alias_name: fieldString("Name of one of its aliases (with 'alias_mount_accessor')"),
  alias_mount_accessor: fieldString("Mount accessor of one of its aliases (with 'alias_name')"),
});
export type IdentityLookupBody = z.output<typeof identityLookupBodySchema>;

export const identityMergeBodySchema = z.object({
  from_entity_ids: fieldStringList('Entity IDs to merge into to_entity_id'),
  to_entity_id: fieldString('Entity ID the others are merged into'),
  force: fieldBool('Merge even when MFA secrets conflict (the target keeps its own)'),
  conflicting_alias_ids_to_keep: fieldStringList(
    'Alias IDs to keep where aliases of the same mount conflict (one from entity at a time)',
  ),
});
export type IdentityMergeBody = z.output<typeof identityMergeBodySchema>;

export const identityBatchDeleteBodySchema = z.object({
  entity_ids: fieldStringList('Entity IDs to delete'),
});

export const identityLookupContracts = {
  lookupEntity: engineContract('core.identity.lookup-entity', {
    body: identityLookupBodySchema.prefault({}),
    data: entityData,
  }),
  lookupGroup: engineContract('core.identity.lookup-group', {
    body: identityLookupBodySchema.prefault({}),
    data: groupData,
  }),
  entityMerge: engineContract('core.identity.entity-merge', {
    body: identityMergeBodySchema.prefault({}),
    data: noData,
  }),
  entityBatchDelete: engineContract('core.identity.entity-batch-delete', {
    body: identityBatchDeleteBodySchema.prefault({}),
    data: noData,
  }),
};

const c = identityLookupContracts;

export const identityLookupRouteDefs: RouteDef[] = [
  {
    pattern: 'lookup/entity',
    synopsis: 'Find an entity by id, name, alias id, or alias name and mount accessor.',
    description: 'Answers the entity as a read does, 204 when none matches.',
    operations: { update: { contract: c.lookupEntity, summary: 'Look up an entity' } },
  },
  {
    pattern: 'lookup/group',
    synopsis: 'Find a group by id, name, alias id, or alias name and mount accessor.',
    description: 'Answers the group as a read does, 204 when none matches.',
    operations: { update: { contract: c.lookupGroup, summary: 'Look up a group' } },
  },
  {
    pattern: 'entity/merge',
    replicated: true,
    synopsis: 'Merge entities into one: their aliases, group memberships and tokens follow.',
    operations: { update: { contract: c.entityMerge, summary: 'Merge entities' } },
    invalidates: ['tokens'],
  },
  {
    pattern: 'entity/batch-delete',
    replicated: true,
    synopsis: 'Delete several entities (and their aliases) at once.',
    operations: { update: { contract: c.entityBatchDelete, summary: 'Delete entities' } },
    invalidates: ['tokens'],
  },
];
