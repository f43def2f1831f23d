import { z } from 'zod';
import { engineContract, type RouteTable } from '../routes';
import { duration, boolish, intish, stringList, stringMap } from './weak-fields';

/**
 * The token store (mount type "token", always mounted at auth/token/). Served by core-sys.
 *
 * Request bodies are typed the way Vault decodes them (weakly: "3" and 3 are the same number,
 * "true" and true the same bool); the service does the strict parsing and answers Vault's texts.
 *
 * Self routes need the caller's own token only where Vault echoes it back (lookup-self `id`,
 * renew-self `client_token`): those routes forward the token headers, every other route works
 * from the caller context (accessor), which never carries the token.
 */

/** Header names (lower case) the gateway forwards for the self routes. */
export const TOKEN_SELF_HEADERS = ['x-service-token', 'x-vault-token', 'authorization'] as const;

export const tokenContracts = {
  create: engineContract('core.token.create'),
  createOrphan: engineContract('core.token.create-orphan'),
  lookup: engineContract('core.token.lookup'),
  lookupSelf: engineContract('core.token.lookup-self'),
  lookupAccessor: engineContract('core.token.lookup-accessor'),
  renew: engineContract('core.token.renew'),
  renewSelf: engineContract('core.token.renew-self'),
  renewAccessor: engineContract('core.token.renew-accessor'),
  revoke: engineContract('core.token.revoke'),
  revokeSelf: engineContract('core.token.revoke-self'),
  revokeAccessor: engineContract('core.token.revoke-accessor'),
  revokeOrphan: engineContract('core.token.revoke-orphan'),
  listAccessors: engineContract('core.token.accessors'),
};

export const tokenCreateBodySchema = z.object({
  id: z.string().optional().describe('Value for the token (root only)'),
  policies: stringList.optional().describe('List of policies for the token'),
  meta: stringMap.optional().describe('Arbitrary key=value metadata to associate with the token'),
  metadata: stringMap.optional().describe('Alias of meta'),
  no_parent: boolish.optional().describe('Create the token with no parent (root/sudo)'),
  no_default_policy: boolish.optional().describe('Do not include the default policy for this token'),
  renewable: boolish.optional().describe('Allow the token to be renewed past its initial TTL (default true)'),
  ttl: duration.optional().describe('Time to live for this token'),
  lease: duration.optional().describe('Deprecated alias of ttl'),
  type: z.string().optional().describe('Token type: "service" (batch tokens are not supported)'),
  explicit_max_ttl: duration.optional().describe('Explicit max TTL of this token'),
  display_name: z.string().optional().describe('Name to associate with this token'),
  num_uses: intish.optional().describe('Max number of uses for this token (0 = unlimited)'),
  period: duration.optional().describe('Renew period (root/sudo)'),
  entity_alias: z.string().optional().describe('Not supported without token roles'),
});
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const tokenBody = z.object({ token: z.string().optional().describe('The token') });
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const accessorBody = z.object({ accessor: z.string().optional().describe('Accessor of the token') });
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const incrementField = duration
  .optional()
  .describe('The desired increment in seconds to the token expiration');

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const authResponse = z
  .object({})
  .describe('data is null; the token is in the auth block (client_token, accessor, policies, ...)');
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const lookupData = z.object({
  accessor: z.string(),
  creation_time: z.number().int(),
  creation_ttl: z.number().int(),
  display_name: z.string(),
  entity_id: z.string(),
  expire_time: z.string().nullable(),
  explicit_max_ttl: z.number().int(),
  id: z.string(),
  identity_policies: z.array(z.string()).optional(),
  issue_time: z.string().optional(),
  meta: stringMap.nullable(),
  num_uses: z.number().int(),
  orphan: z.boolean(),
  path: z.string(),
  period: z.number().int().optional(),
  policies: z.array(z.string()),
  renewable: z.boolean().optional(),
  ttl: z.number().int(),
  type: z.string(),
});

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
