import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * Identity events, one stream per entity: `entity/<id>`. An entity's aliases live in its stream,
 * so an entity created together with its first alias (first login) is one atomic append.
 */

const stringMap = stringMapSchema;

export const entityCreatedV1 = z.object({
  id: z.string(),
  name: z.string(),
  metadata: stringMap,
  policies: z.array(z.string()),
  disabled: z.boolean(),
  /** unix ms */
  createdAt: z.number().int(),
  /** the namespace the entity belongs to ("" = root; events from before namespaces lack it) */
  namespace: z.string().default(''),
});
export type EntityCreatedData = z.infer<typeof entityCreatedV1>;

/** The entity's fields after the update (all of them: an update is a full replacement). */
export const entityUpdatedV1 = z.object({
  name: z.string(),
  metadata: stringMap,
  policies: z.array(z.string()),
  disabled: z.boolean(),
  updatedAt: z.number().int(),
});
export type EntityUpdatedData = z.infer<typeof entityUpdatedV1>;

export const entityDeletedV1 = z.object({ deletedAt: z.number().int() });
export type EntityDeletedData = z.infer<typeof entityDeletedV1>;

export const aliasFieldsV1 = z.object({
  aliasId: z.string(),
  mountAccessor: z.string(),
  name: z.string(),
  customMetadata: stringMap,
});

export const entityAliasAddedV1 = aliasFieldsV1.extend({
  /** creation time of the alias (kept when an alias moves between entities) */
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type EntityAliasAddedData = z.infer<typeof entityAliasAddedV1>;

export const entityAliasUpdatedV1 = aliasFieldsV1.extend({ updatedAt: z.number().int() });
export type EntityAliasUpdatedData = z.infer<typeof entityAliasUpdatedV1>;

export const entityAliasRemovedV1 = z.object({
  aliasId: z.string(),
  /** set when the alias moved to another entity (it was added there first) */
  movedTo: z.string().nullable(),
  removedAt: z.number().int(),
});
export type EntityAliasRemovedData = z.infer<typeof entityAliasRemovedV1>;

/** An alias that came over from a merged entity (its creation time and merge trail kept). */
export const mergedAliasV1 = aliasFieldsV1.extend({
  createdAt: z.number().int(),
  mergedFromCanonicalIds: z.array(z.string()),
});

/** Other entities were merged into this one: their aliases (but conflicting ones) are now its own. */
export const entitiesMergedV1 = z.object({
  fromEntityIds: z.array(z.string()),
  /** ids this entity now also stands for (the merged entities and what they had merged) */
  mergedEntityIds: z.array(z.string()),
  aliases: z.array(mergedAliasV1),
  /** this entity's own aliases dropped in favour of a conflicting merged one */
  removedAliasIds: z.array(z.string()),
  mergedAt: z.number().int(),
});
export type EntitiesMergedData = z.infer<typeof entitiesMergedV1>;

/** The entity was merged into another and is gone; its tokens now act as that entity. */
export const entityMergedIntoV1 = z.object({ toEntityId: z.string(), mergedAt: z.number().int() });

export const IDENTITY_EVENT_TYPES = {
  entityCreated: { name: 'EntityCreated', version: 1, schema: entityCreatedV1 },
  entityUpdated: { name: 'EntityUpdated', version: 1, schema: entityUpdatedV1 },
  entityDeleted: { name: 'EntityDeleted', version: 1, schema: entityDeletedV1 },
  aliasAdded: { name: 'EntityAliasAdded', version: 1, schema: entityAliasAddedV1 },
  aliasUpdated: { name: 'EntityAliasUpdated', version: 1, schema: entityAliasUpdatedV1 },
  aliasRemoved: { name: 'EntityAliasRemoved', version: 1, schema: entityAliasRemovedV1 },
  entitiesMerged: { name: 'EntitiesMerged', version: 1, schema: entitiesMergedV1 },
  mergedInto: { name: 'EntityMergedInto', version: 1, schema: entityMergedIntoV1 },
} as const;

export type IdentityEvent = EventOf<typeof IDENTITY_EVENT_TYPES>;

export const entityStream = (id: string): string => `entity/${id}`;

/** Entity streams, keyed by entity id. */
export const IDENTITY_LOG = defineAggregateLog({
  description: 'an identity event',
  events: IDENTITY_EVENT_TYPES,
  stream: entityStream,
});
