import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * The group graph of a namespace is one aggregate, one stream (`group-graph/<namespace>`):
 * nesting must stay acyclic and an alias may move between groups, invariants that span groups,
 * so every group write is decided on the whole graph and appended at its version (Vault
 * serialises group writes with one lock for the same reason).
 */

const strings = z.array(z.string());

export const groupFieldsV1 = z.object({
  name: z.string(),
  metadata: stringMapSchema,
  policies: strings,
  memberEntityIds: strings,
  /** the groups nested in this one (their parent is this group) */
  memberGroupIds: strings,
});

export const groupCreatedV1 = groupFieldsV1.extend({
  id: z.string(),
  type: z.enum(['internal', 'external']),
  createdAt: z.number().int(),
});

/** The group's fields after the update (a full replacement). */
export const groupUpdatedV1 = groupFieldsV1.extend({ id: z.string(), updatedAt: z.number().int() });

export const groupDeletedV1 = z.object({ id: z.string(), deletedAt: z.number().int() });

/** The group's alias is now this one (replacing any); an alias of another group moves here. */
export const groupAliasSetV1 = z.object({
  groupId: z.string(),
  aliasId: z.string(),
  mountAccessor: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});

export const groupAliasRemovedV1 = z.object({
  groupId: z.string(),
  aliasId: z.string(),
  removedAt: z.number().int(),
});

/** Deleted entities left every group they were a member of. */
export const groupEntityMembersRemovedV1 = z.object({ entityIds: strings, at: z.number().int() });

/** Entities merged into `toEntityId`: its groups are now theirs. */
export const groupEntityMembersMergedV1 = z.object({
  fromEntityIds: strings,
  toEntityId: z.string(),
  at: z.number().int(),
});

export const GROUP_EVENT_TYPES = {
  groupCreated: { name: 'GroupCreated', version: 1, schema: groupCreatedV1 },
  groupUpdated: { name: 'GroupUpdated', version: 1, schema: groupUpdatedV1 },
  groupDeleted: { name: 'GroupDeleted', version: 1, schema: groupDeletedV1 },
  groupAliasSet: { name: 'GroupAliasSet', version: 1, schema: groupAliasSetV1 },
  groupAliasRemoved: { name: 'GroupAliasRemoved', version: 1, schema: groupAliasRemovedV1 },
  entityMembersRemoved: {
    name: 'GroupEntityMembersRemoved',
    version: 1,
    schema: groupEntityMembersRemovedV1,
  },
  entityMembersMerged: { name: 'GroupEntityMembersMerged', version: 1, schema: groupEntityMembersMergedV1 },
} as const;

export type GroupEvent = EventOf<typeof GROUP_EVENT_TYPES>;

/** The graph key of the root namespace (kept from before namespaces: its stream exists). */
export const ROOT_GRAPH = 'root';

/**
 * Each namespace has its own group graph: the root's is keyed "root", another's by its full
 * path ("ns1/", always with its trailing slash, so never "root").
 */
export const groupGraphKey = (namespace: string): string => (namespace === '' ? ROOT_GRAPH : namespace);
export const namespaceOfGraph = (key: string): string => (key === ROOT_GRAPH ? '' : key);

export const GROUP_LOG = defineAggregateLog({
  description: 'an identity group event',
  events: GROUP_EVENT_TYPES,
  stream: (namespace: string) => `group-graph/${namespace}`,
});
