import { z } from 'zod';
import { engineContract, type RouteTable } from '../routes';
import { fieldBool, fieldString, fieldStringList, fieldStringMap } from './core-sys-fields.schema';
import {
  aliasData,
  aliasListData,
  aliasWrittenData,
  entityCreatedData,
  entityData,
  entityListData,
  noData,
} from './core-sys-data.schema';
import { identityGroupRouteDefs } from './identity-group.routes';
import { identityLookupRouteDefs } from './identity-lookup.routes';

/**
 * The identity store (mount type "identity", at identity/): entities and entity aliases.
 * An entity's policies apply to every token tied to it (identity_policies); a disabled entity
 * makes its tokens unusable without revoking them.
 */

export const identityEntityBodySchema = z.object({
  id: fieldString('ID of the entity; if set, updates that entity'),
  name: fieldString('Name of the entity (generated when absent)'),
  metadata: fieldStringMap('Metadata to associate with the entity', 'failed to parse metadata: '),
  policies: fieldStringList('Policies tied to the entity'),
  disabled: fieldBool('If true, tokens tied to this entity cannot be used (they are not revoked)'),
});
export type IdentityEntityBody = z.output<typeof identityEntityBodySchema>;

export const identityAliasBodySchema = z.object({
  id: fieldString('ID of the alias; if set, updates that alias'),
  name: fieldString('Name of the alias: the user name in the auth method'),
  canonical_id: fieldString('Entity the alias belongs to (a new entity is created when absent)'),
  entity_id: fieldString('Deprecated alias of canonical_id'),
  mount_accessor: fieldString('Accessor of the auth mount the alias belongs to'),
  custom_metadata: fieldStringMap('Custom metadata of the alias', 'failed to parse custom_metadata: '),
});
export type IdentityAliasBody = z.output<typeof identityAliasBodySchema>;

const idParams = z.object({ id: z.string().default('') }).prefault({});
const nameParams = z.object({ name: z.string().default('') }).prefault({});

const entityBody = identityEntityBodySchema.prefault({});
const aliasBody = identityAliasBodySchema.prefault({});

/**
 * A login's alias on a performance secondary (no route: core-sys's login calls it through the
 * replication service, which forwards it to the primary): the primary finds or makes the entity
 * of the alias (the request's auth mount, `name`), as Vault's secondaries register entities on
 * their primary. The entity then streams back like every identity change.
 */
export const identityLoginAlias = engineContract('core.identity.login-alias', {
  body: z.object({ name: z.string().min(1) }),
  data: z.object({ entity_id: z.string() }),
});

export const identityContracts = {
  entityWrite: engineContract('core.identity.entity-write', { body: entityBody, data: entityCreatedData }),
  entityByIdRead: engineContract('core.identity.entity-id-read', { params: idParams, data: entityData }),
  entityByIdWrite: engineContract('core.identity.entity-id-write', {
    params: idParams,
    body: entityBody,
    data: entityCreatedData,
  }),
  entityByIdDelete: engineContract('core.identity.entity-id-delete', { params: idParams, data: noData }),
  entityByIdList: engineContract('core.identity.entity-id-list', { data: entityListData }),
  entityByNameRead: engineContract('core.identity.entity-name-read', {
    params: nameParams,
    data: entityData,
  }),
  entityByNameWrite: engineContract('core.identity.entity-name-write', {
    params: nameParams,
    body: entityBody,
    data: entityCreatedData,
  }),
  entityByNameDelete: engineContract('core.identity.entity-name-delete', {
    params: nameParams,
    data: noData,
  }),
  entityByNameList: engineContract('core.identity.entity-name-list', { data: entityListData }),
  aliasWrite: engineContract('core.identity.alias-write', { body: aliasBody, data: aliasWrittenData }),
  aliasByIdRead: engineContract('core.identity.alias-id-read', { params: idParams, data: aliasData }),
  aliasByIdWrite: engineContract('core.identity.alias-id-write', {
    params: idParams,
    body: aliasBody,
    data: aliasWrittenData,
  }),
  aliasByIdDelete: engineContract('core.identity.alias-id-delete', { params: idParams, data: noData }),
  aliasByIdList: engineContract('core.identity.alias-id-list', { data: aliasListData }),
};

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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
    ...identityGroupRouteDefs,
    ...identityLookupRouteDefs,
  ],
};
