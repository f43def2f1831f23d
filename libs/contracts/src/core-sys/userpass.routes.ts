import { z } from 'zod';
import { engineContract, existenceContract, type RouteTable } from '../routes';
import { fieldBool, fieldDuration, fieldInt, fieldString, fieldStringList } from './core-sys-fields.schema';
import { keysData, noData, userpassUserData } from './core-sys-data.schema';

/**
 * The userpass auth method (mount type "userpass", enabled with sys/auth at any path under
 * auth/). Users are stored per mount uuid; usernames are case-insensitive (lower-cased).
 */

const tokenFields = {
  token_policies: fieldStringList('Policies of the tokens issued at login'),
  policies: fieldStringList('Deprecated alias of token_policies'),
  token_ttl: fieldDuration('Initial TTL of issued tokens'),
  ttl: fieldDuration('Deprecated alias of token_ttl'),
  token_max_ttl: fieldDuration('Maximum lifetime of issued tokens'),
  max_ttl: fieldDuration('Deprecated alias of token_max_ttl'),
  token_explicit_max_ttl: fieldDuration('Hard cap on the lifetime of issued tokens'),
  token_period: fieldDuration('Makes issued tokens periodic with this period'),
  token_num_uses: fieldInt('Maximum number of uses of issued tokens (0 = unlimited)'),
  token_no_default_policy: fieldBool('Do not add the default policy to issued tokens'),
  token_type: fieldString('"default" or "service"'),
  token_bound_cidrs: fieldStringList('CIDR blocks allowed to log in (and use issued tokens)'),
  bound_cidrs: fieldStringList('Deprecated alias of token_bound_cidrs'),
};

/** The token_* fields of a user (Vault's tokenutil.TokenParams), as given: undefined = unchanged. */
export const userpassTokenFieldsSchema = z.object(tokenFields);
export type UserpassTokenFields = z.output<typeof userpassTokenFieldsSchema>;

export const userpassUserBodySchema = z.object({
  password: fieldString('Password for the user (required on create)'),
  ...tokenFields,
});
export type UserpassUserBody = z.output<typeof userpassUserBodySchema>;

const usernameParams = z.object({ username: z.string().default('') }).prefault({});
const passwordBody = z.object({ password: fieldString('Password for the user') });
const policiesBody = z.object({
  token_policies: fieldStringList('Policies of the tokens issued at login'),
  policies: fieldStringList('Deprecated alias of token_policies'),
});

const userBody = userpassUserBodySchema.prefault({});
const passwordOnly = passwordBody.prefault({});

export const userpassContracts = {
  userWrite: engineContract('core.userpass.user-write', {
    params: usernameParams,
    body: userBody,
    data: noData,
  }),
  userExists: existenceContract('core.userpass.user-exists'),
  userRead: engineContract('core.userpass.user-read', { params: usernameParams, data: userpassUserData }),
  userDelete: engineContract('core.userpass.user-delete', { params: usernameParams, data: noData }),
  userList: engineContract('core.userpass.user-list', { data: keysData }),
  userPassword: engineContract('core.userpass.user-password', {
    params: usernameParams,
    body: passwordOnly,
    data: noData,
  }),
  userPolicies: engineContract('core.userpass.user-policies', {
    params: usernameParams,
    body: policiesBody.prefault({}),
    data: noData,
  }),
  // The token is in the auth block.
  login: engineContract('core.userpass.login', { params: usernameParams, body: passwordOnly, data: noData }),
};

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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
