import { z } from 'zod';
import { engineContract, existenceContract, type RouteTable } from '../routes';
import { duration, boolish, intish, stringList } from './weak-fields';

/**
 * The userpass auth method (mount type "userpass", enabled with sys/auth at any path under
 * auth/). Users are stored per mount uuid; usernames are case-insensitive (lower-cased).
 */

export const userpassContracts = {
  userWrite: engineContract('core.userpass.user-write'),
  userExists: existenceContract('core.userpass.user-exists'),
  userRead: engineContract('core.userpass.user-read'),
  userDelete: engineContract('core.userpass.user-delete'),
  userList: engineContract('core.userpass.user-list'),
  userPassword: engineContract('core.userpass.user-password'),
  userPolicies: engineContract('core.userpass.user-policies'),
  login: engineContract('core.userpass.login'),
};

const tokenFields = {
  token_policies: stringList.optional().describe('Policies of the tokens issued at login'),
  policies: stringList.optional().describe('Deprecated alias of token_policies'),
  token_ttl: duration.optional().describe('Initial TTL of issued tokens'),
  ttl: duration.optional().describe('Deprecated alias of token_ttl'),
  token_max_ttl: duration.optional().describe('Maximum lifetime of issued tokens'),
  max_ttl: duration.optional().describe('Deprecated alias of token_max_ttl'),
  token_explicit_max_ttl: duration.optional().describe('Hard cap on the lifetime of issued tokens'),
  token_period: duration.optional().describe('Makes issued tokens periodic with this period'),
  token_num_uses: intish.optional().describe('Maximum number of uses of issued tokens (0 = unlimited)'),
  token_no_default_policy: boolish.optional().describe('Do not add the default policy to issued tokens'),
  token_type: z.string().optional().describe('"default" or "service"'),
  token_bound_cidrs: stringList.optional().describe('CIDR blocks allowed to log in (and use issued tokens)'),
  bound_cidrs: stringList.optional().describe('Deprecated alias of token_bound_cidrs'),
};

export const userpassUserBodySchema = z.object({
  password: z.string().optional().describe('Password for the user (required on create)'),
  ...tokenFields,
});

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- core-sys's move onto typed contracts uses it
const userData = z.object({
  token_bound_cidrs: z.array(z.string()),
  token_explicit_max_ttl: z.number().int(),
  token_max_ttl: z.number().int(),
  token_no_default_policy: z.boolean(),
  token_num_uses: z.number().int(),
  token_period: z.number().int(),
  token_policies: z.array(z.string()),
  token_ttl: z.number().int(),
  token_type: z.string(),
});

export const userpassRoutes: RouteTable = {
  engine: 'userpass',
  service: 'core-sys',
  help: [
    'The userpass auth method lets users authenticate with a username and password.',
    '',
    'Users are managed under users/; logging in at login/<username> returns a token',
    'whose policies come from the user (token_policies) and from its identity entity.',
  ].join('\n'),
  routes: [
    {
      pattern: 'users',
      synopsis: 'List the users of this auth method.',
      operations: {
        list: {
          contract: userpassContracts.userList,
          summary: 'List users',
        },
      },
    },
    {
      pattern: 'users/:username',
      synopsis: 'Manage a user: its password and the properties of the tokens it gets at login.',
      description:
        'Writing a new user needs a password; updating an existing one changes only the given fields.',
      existenceCheck: userpassContracts.userExists,
      operations: {
        create: {
          contract: userpassContracts.userWrite,
          summary: 'Create a user',
        },
        update: {
          contract: userpassContracts.userWrite,
          summary: 'Update a user',
        },
        read: { contract: userpassContracts.userRead, summary: 'Read a user' },
        delete: { contract: userpassContracts.userDelete, summary: 'Delete a user' },
      },
    },
    {
      pattern: 'users/:username/password',
      synopsis: "Reset a user's password.",
      operations: {
        update: {
          contract: userpassContracts.userPassword,
          summary: 'Set the password',
        },
      },
    },
    {
      pattern: 'users/:username/policies',
      synopsis: "Update a user's token policies.",
      operations: {
        update: {
          contract: userpassContracts.userPolicies,
          summary: 'Set the token policies',
        },
      },
    },
    {
      pattern: 'login/:username',
      synopsis: 'Log in with a username and password.',
      description:
        'Answers a token in the auth block. Bad credentials answer 400 "invalid username or password".',
      unauthenticated: true,
      operations: {
        update: {
          contract: userpassContracts.login,
          summary: 'Log in',
        },
      },
    },
  ],
};
