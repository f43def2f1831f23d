import { z } from 'zod';
import { engineContract, existenceContract, type RouteTable } from '../routes';
import {
  fieldBool,
  fieldDuration,
  fieldInt,
  fieldString,
  fieldStringList,
  fieldStringMap,
  optionalDuration,
} from './core-sys-fields.schema';
import { keysData, noData, tokenLookupData } from './core-sys-data.schema';
import { tokenRoleBodySchema, tokenRoleData } from './token-role.schema';

/**
 * The token store (mount type "token", always mounted at auth/token/). Served by core-sys.
 *
 * Request bodies are read the way Vault's framework.FieldData reads them (weakly: "3" and 3 are
 * the same number, null is "not set"), with its error texts.
 *
 * Self routes need the caller's own token only where Vault echoes it back (lookup-self `id`,
 * renew-self `client_token`): those routes forward the token headers, every other route works
 * from the caller context (accessor), which never carries the token.
 */

/** Header names (lower case) the gateway forwards for the self routes. */
export const TOKEN_SELF_HEADERS = ['x-service-token', 'x-vault-token', 'authorization'] as const;

export const tokenCreateBodySchema = z.object({
  id: fieldString('Value for the token (root only)'),
  policies: fieldStringList('List of policies for the token'),
  meta: fieldStringMap('Arbitrary key=value metadata to associate with the token'),
  metadata: fieldStringMap('Alias of meta'),
  no_parent: fieldBool('Create the token with no parent (root/sudo)'),
  no_default_policy: fieldBool('Do not include the default policy for this token'),
  renewable: fieldBool('Allow the token to be renewed past its initial TTL (default true)'),
  // "" is "not given" here: the token store falls back to `lease` then.
  ttl: optionalDuration({ description: 'Time to live for this token' }),
  lease: optionalDuration({ description: 'Deprecated alias of ttl' }),
  type: fieldString('Token type: "service" (default) or "batch"'),
  explicit_max_ttl: fieldDuration('Explicit max TTL of this token'),
  display_name: fieldString('Name to associate with this token'),
  num_uses: fieldInt('Max number of uses for this token (0 = unlimited)'),
  period: fieldDuration('Renew period (root/sudo)'),
  entity_alias: fieldString('Not supported without token roles'),
});
export type TokenCreateBody = z.output<typeof tokenCreateBodySchema>;

const tokenBody = z.object({ token: fieldString('The token') });
const accessorBody = z.object({ accessor: fieldString('Accessor of the token') });
const incrementField = fieldDuration('The desired increment in seconds to the token expiration');

const tokenBodyOnly = tokenBody.prefault({});
const accessorBodyOnly = accessorBody.prefault({});
const createBody = tokenCreateBodySchema.prefault({});
const roleParams = z.object({ name: z.string().default('') }).prefault({});
const roleBody = tokenRoleBodySchema.prefault({});

/** create, renew and login answer the token in the auth block, never in data. */
export const tokenContracts = {
  create: engineContract('core.token.create', { body: createBody, data: noData }),
  createOrphan: engineContract('core.token.create-orphan', { body: createBody, data: noData }),
  lookup: engineContract('core.token.lookup', { body: tokenBodyOnly, data: tokenLookupData }),
  lookupSelf: engineContract('core.token.lookup-self', { data: tokenLookupData }),
  lookupAccessor: engineContract('core.token.lookup-accessor', {
    body: accessorBodyOnly,
    data: tokenLookupData,
  }),
  renew: engineContract('core.token.renew', {
    body: tokenBody.extend({ increment: incrementField }).prefault({}),
    data: noData,
  }),
  renewSelf: engineContract('core.token.renew-self', {
    body: z.object({ increment: incrementField }).prefault({}),
    data: noData,
  }),
  renewAccessor: engineContract('core.token.renew-accessor', {
    body: accessorBody.extend({ increment: incrementField }).prefault({}),
    data: noData,
  }),
  revoke: engineContract('core.token.revoke', { body: tokenBodyOnly, data: noData }),
  revokeSelf: engineContract('core.token.revoke-self', { data: noData }),
  revokeAccessor: engineContract('core.token.revoke-accessor', { body: accessorBodyOnly, data: noData }),
  revokeOrphan: engineContract('core.token.revoke-orphan', { body: tokenBodyOnly, data: noData }),
  listAccessors: engineContract('core.token.accessors', { data: keysData }),
  createWithRole: engineContract('core.token.create-role', {
    params: z.object({ role: z.string().default('') }).prefault({}),
    body: createBody,
    data: noData,
  }),
  tidy: engineContract('core.token.tidy', { data: noData }),
  roleList: engineContract('core.token.role-list', { data: keysData }),
  roleRead: engineContract('core.token.role-read', { params: roleParams, data: tokenRoleData }),
  roleWrite: engineContract('core.token.role-write', { params: roleParams, body: roleBody, data: noData }),
  roleDelete: engineContract('core.token.role-delete', { params: roleParams, data: noData }),
  roleExists: existenceContract('core.token.role-exists'),
};

export const tokenRoutes: RouteTable = {
  engine: 'token',
  service: 'core-sys',
  help: [
    'The token credential store is used to create, look up, renew and revoke tokens.',
    '',
    'Tokens form a tree: revoking a token revokes its children unless they are orphans.',
    'Only a salted hash of each token is stored; tokens are identified elsewhere by accessor.',
  ].join('\n'),
  routes: [
    {
      pattern: 'create',
      synopsis: 'Create a new token, a child of the calling token.',
      description:
        'Policies must be a subset of the caller\'s unless the caller is root. "default" is added unless no_default_policy is set. no_parent, period and id need root.',
      operations: {
        update: {
          contract: tokenContracts.create,
          summary: 'Create a token',
        },
      },
    },
    {
      pattern: 'create-orphan',
      synopsis: 'Create a new orphan token (no parent).',
      description: 'Same parameters as create; the new token survives the revocation of its creator.',
      operations: {
        update: {
          contract: tokenContracts.createOrphan,
          summary: 'Create an orphan token',
        },
      },
    },
    {
      pattern: 'lookup',
      synopsis: 'Look up the properties of a token (the calling token when none is given).',
      headers: [...TOKEN_SELF_HEADERS],
      operations: {
        update: {
          contract: tokenContracts.lookup,
          summary: 'Look up a token',
        },
      },
    },
    {
      pattern: 'lookup-self',
      synopsis: 'Look up the properties of the calling token.',
      headers: [...TOKEN_SELF_HEADERS],
      operations: {
        read: {
          contract: tokenContracts.lookupSelf,
          summary: 'Look up the calling token',
        },
        update: {
          contract: tokenContracts.lookupSelf,
          summary: 'Look up the calling token',
        },
      },
    },
    {
      pattern: 'lookup-accessor',
      synopsis: 'Look up the properties of a token by its accessor (the token id is not returned).',
      operations: {
        update: {
          contract: tokenContracts.lookupAccessor,
          summary: 'Look up a token by accessor',
        },
      },
    },
    {
      pattern: 'renew',
      synopsis: 'Renew a token, extending its TTL.',
      operations: {
        update: {
          contract: tokenContracts.renew,
          summary: 'Renew a token',
        },
      },
    },
    {
      pattern: 'renew-self',
      synopsis: 'Renew the calling token.',
      headers: [...TOKEN_SELF_HEADERS],
      operations: {
        update: {
          contract: tokenContracts.renewSelf,
          summary: 'Renew the calling token',
        },
      },
    },
    {
      pattern: 'renew-accessor',
      synopsis: 'Renew a token by its accessor.',
      operations: {
        update: {
          contract: tokenContracts.renewAccessor,
          summary: 'Renew a token by accessor',
        },
      },
    },
    {
      pattern: 'revoke',
      invalidates: ['tokens'],
      synopsis: 'Revoke a token and all its children.',
      operations: { update: { contract: tokenContracts.revoke, summary: 'Revoke a token' } },
    },
    {
      pattern: 'revoke-self',
      invalidates: ['tokens'],
      synopsis: 'Revoke the calling token and all its children.',
      operations: { update: { contract: tokenContracts.revokeSelf, summary: 'Revoke the calling token' } },
    },
    {
      pattern: 'revoke-accessor',
      invalidates: ['tokens'],
      synopsis: 'Revoke a token and all its children by accessor.',
      operations: {
        update: {
          contract: tokenContracts.revokeAccessor,
          summary: 'Revoke a token by accessor',
        },
      },
    },
    {
      pattern: 'revoke-orphan',
      invalidates: ['tokens'],
      synopsis: 'Revoke a token, leaving its children as orphans.',
      description: 'Needs sudo.',
      sudo: true,
      operations: {
        update: {
          contract: tokenContracts.revokeOrphan,
          summary: 'Revoke a token, orphaning its children',
        },
      },
    },
    {
      pattern: 'create/:role',
      synopsis: 'Create a new token following the rules of a token role.',
      description:
        "The role's allowed/disallowed policies replace the subset-of-the-caller rule; orphan, period, explicit max TTL, renewability, path suffix and token type come from the role.",
      operations: {
        update: { contract: tokenContracts.createWithRole, summary: 'Create a token with a role' },
      },
    },
    {
      pattern: 'roles',
      synopsis: 'List the token roles.',
      operations: { list: { contract: tokenContracts.roleList, summary: 'List token roles' } },
    },
    {
      pattern: 'roles/:name',
      replicated: true,
      synopsis: 'Create, read, update or delete a token role.',
      description:
        "Updating an existing role changes only the given fields; creating one uses Vault's defaults.",
      existenceCheck: tokenContracts.roleExists,
      operations: {
        create: { contract: tokenContracts.roleWrite, summary: 'Create a token role' },
        update: { contract: tokenContracts.roleWrite, summary: 'Update a token role' },
        read: { contract: tokenContracts.roleRead, summary: 'Read a token role' },
        delete: { contract: tokenContracts.roleDelete, summary: 'Delete a token role' },
      },
    },
    {
      pattern: 'tidy',
      synopsis: 'Clean up leftovers of expired and revoked tokens.',
      description: 'Revokes expired tokens, used-up tokens and tokens whose parent is gone. Answers 202.',
      operations: { update: { contract: tokenContracts.tidy, summary: 'Tidy the token store' } },
    },
    {
      pattern: 'accessors',
      synopsis: 'List the accessors of all tokens.',
      description: 'Needs sudo.',
      sudo: true,
      operations: {
        list: {
          contract: tokenContracts.listAccessors,
          summary: 'List token accessors',
        },
      },
    },
  ],
};
