import { z } from 'zod';
import { engineContract, type RouteTable } from '../routes';
import { boolish, stringList, stringMap } from './weak-fields';

/**
 * The identity store (mount type "identity", at identity/): entities and entity aliases.
 * An entity's policies apply to every token tied to it (identity_policies); a disabled entity
 * makes its tokens unusable without revoking them.
 */

export const identityContracts = {
  entityWrite: engineContract('core.identity.entity-write'),
  entityByIdRead: engineContract('core.identity.entity-id-read'),
  entityByIdWrite: engineContract('core.identity.entity-id-write'),
  entityByIdDelete: engineContract('core.identity.entity-id-delete'),
  entityByIdList: engineContract('core.identity.entity-id-list'),
  entityByNameRead: engineContract('core.identity.entity-name-read'),
  entityByNameWrite: engineContract('core.identity.entity-name-write'),
  entityByNameDelete: engineContract('core.identity.entity-name-delete'),
  entityByNameList: engineContract('core.identity.entity-name-list'),
  aliasWrite: engineContract('core.identity.alias-write'),
  aliasByIdRead: engineContract('core.identity.alias-id-read'),
  aliasByIdWrite: engineContract('core.identity.alias-id-write'),
  aliasByIdDelete: engineContract('core.identity.alias-id-delete'),
  aliasByIdList: engineContract('core.identity.alias-id-list'),
};

export const identityEntityBodySchema = z.object({
  id: z.string().optional().describe('ID of the entity; if set, updates that entity'),
  name: z.string().optional().describe('Name of the entity (generated when absent)'),
  metadata: stringMap.optional().describe('Metadata to associate with the entity'),
  policies: stringList.optional().describe('Policies tied to the entity'),
  disabled: boolish
    .optional()
    .describe('If true, tokens tied to this entity cannot be used (they are not revoked)'),
});

export const identityAliasBodySchema = z.object({
  id: z.string().optional().describe('ID of the alias; if set, updates that alias'),
  name: z.string().optional().describe('Name of the alias: the user name in the auth method'),
  canonical_id: z
    .string()
    .optional()
    .describe('Entity the alias belongs to (a new entity is created when absent)'),
  entity_id: z.string().optional().describe('Deprecated alias of canonical_id'),
  mount_accessor: z.string().optional().describe('Accessor of the auth mount the alias belongs to'),
  custom_metadata: stringMap.optional().describe('Custom metadata of the alias'),
});

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const keysData = z.object({ keys: z.array(z.string()), key_info: z.record(z.string(), z.unknown()) });
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const entityCreated = z.object({ id: z.string(), name: z.string(), aliases: z.array(z.string()).nullable() });
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const aliasCreated = z.object({ id: z.string(), canonical_id: z.string() });

export const identityRoutes: RouteTable = {
  engine: 'identity',
  service: 'core-sys',
  help: [
    'The identity store keeps entities (one per person or service) and their aliases',
    '(one per auth method account). Entity policies are added to every token of the entity.',
  ].join('\n'),
  routes: [
    {
      pattern: 'entity',
      synopsis: 'Create an entity, or update the one with the given id or name.',
      description: 'Answers {id, name, aliases} when a new entity was created, 204 on update.',
      operations: {
        update: {
          contract: identityContracts.entityWrite,
          summary: 'Create or update an entity',
        },
      },
    },
    {
      pattern: 'entity/id',
      synopsis: 'List entities by id.',
      operations: {
        list: {
          contract: identityContracts.entityByIdList,
          summary: 'List entity ids',
        },
      },
    },
    {
      pattern: 'entity/id/:id',
      synopsis: 'Read, update or delete an entity by id.',
      operations: {
        read: { contract: identityContracts.entityByIdRead, summary: 'Read an entity' },
        update: {
          contract: identityContracts.entityByIdWrite,
          summary: 'Update an entity',
        },
        delete: { contract: identityContracts.entityByIdDelete, summary: 'Delete an entity and its aliases' },
      },
    },
    {
      pattern: 'entity/name',
      synopsis: 'List entities by name.',
      operations: {
        list: {
          contract: identityContracts.entityByNameList,
          summary: 'List entity names',
        },
      },
    },
    {
      pattern: 'entity/name/:name*',
      synopsis: 'Read, create/update or delete an entity by name.',
      operations: {
        read: { contract: identityContracts.entityByNameRead, summary: 'Read an entity' },
        update: {
          contract: identityContracts.entityByNameWrite,
          summary: 'Create or update an entity',
        },
        delete: {
          contract: identityContracts.entityByNameDelete,
          summary: 'Delete an entity and its aliases',
        },
      },
    },
    {
      pattern: 'entity-alias',
      synopsis: 'Create an entity alias, or update the one with the given id or mount accessor and name.',
      operations: {
        update: {
          contract: identityContracts.aliasWrite,
          summary: 'Create or update an alias',
        },
      },
    },
    {
      pattern: 'entity-alias/id',
      synopsis: 'List entity aliases by id.',
      operations: {
        list: {
          contract: identityContracts.aliasByIdList,
          summary: 'List alias ids',
        },
      },
    },
    {
      pattern: 'entity-alias/id/:id',
      synopsis: 'Read, update or delete an entity alias by id.',
      operations: {
        read: { contract: identityContracts.aliasByIdRead, summary: 'Read an alias' },
        update: {
          contract: identityContracts.aliasByIdWrite,
          summary: 'Update an alias',
        },
        delete: { contract: identityContracts.aliasByIdDelete, summary: 'Delete an alias' },
      },
    },
  ],
};
