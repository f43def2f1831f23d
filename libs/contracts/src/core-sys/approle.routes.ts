import { z } from 'zod';
import { jsonObjectSchema } from '../fields';
import { engineContract, existenceContract, type RouteTable } from '../routes';
import { fieldBool, fieldDuration, fieldInt, fieldString, fieldStringList } from './core-sys-fields.schema';
import { keysData, noData } from './core-sys-data.schema';

/**
 * The AppRole auth method (mount type "approle", enabled with sys/auth). Roles are stored per
 * mount uuid; a role's secret ids are kept only as salted HMACs, and each is consumed atomically.
 */

const roleTokenFields = {
  token_policies: fieldStringList('Policies of the tokens issued at login'),
  policies: fieldStringList('Deprecated alias of token_policies'),
  token_ttl: fieldDuration('Initial TTL of issued tokens'),
  token_max_ttl: fieldDuration('Maximum lifetime of issued tokens'),
  token_explicit_max_ttl: fieldDuration('Hard cap on the lifetime of issued tokens'),
  token_period: fieldDuration('Makes issued tokens periodic with this period'),
  period: fieldDuration('Deprecated alias of token_period'),
  token_num_uses: fieldInt('Maximum number of uses of issued tokens (0 = unlimited)'),
  token_no_default_policy: fieldBool('Do not add the default policy to issued tokens'),
  token_type: fieldString('"default" or "service"'),
  token_bound_cidrs: fieldStringList('CIDR blocks allowed to use issued tokens'),
};

export const approleRoleBodySchema = z.object({
  role_id: fieldString('Custom role id (a UUID is generated when the role is created without one)'),
  bind_secret_id: fieldBool('Login requires a secret id (default true)'),
  secret_id_bound_cidrs: fieldStringList('CIDR blocks allowed to log in with this role'),
  secret_id_num_uses: fieldInt('Default number of uses of new secret ids (0 = unlimited)'),
  secret_id_ttl: fieldDuration('Default TTL of new secret ids (0 = no expiry)'),
  local_secret_ids: fieldBool('Secret ids are local to the cluster (only on create)'),
  ...roleTokenFields,
});
export type ApproleRoleBody = z.output<typeof approleRoleBodySchema>;

export const approleSecretIdBodySchema = z.object({
  secret_id: fieldString('The secret id (custom-secret-id only)'),
  metadata: fieldString('JSON object of string values, attached to tokens issued with it'),
  cidr_list: fieldStringList('CIDR blocks allowed to log in with this secret id'),
  token_bound_cidrs: fieldStringList('CIDR blocks allowed to use the issued tokens'),
  num_uses: fieldInt('Number of logins this secret id allows (0 = unlimited)'),
  ttl: fieldDuration('TTL of this secret id'),
});
export type ApproleSecretIdBody = z.output<typeof approleSecretIdBodySchema>;

const roleParams = z.object({ role_name: z.string().default('') }).prefault({});
const roleIdBody = z.object({ role_id: fieldString('The new role id') });
const secretIdOnly = z.object({ secret_id: fieldString('The secret id') });
const accessorOnly = z.object({ secret_id_accessor: fieldString('The secret id accessor') });
const loginBody = z.object({
  role_id: fieldString('The role id'),
  secret_id: fieldString('A secret id of the role (when bind_secret_id is set)'),
});

const strings = z.array(z.string());

/** GET role/:role_name (path_role.go pathRoleRead). */
export const approleRoleData = z.object({
  bind_secret_id: z.boolean(),
  local_secret_ids: z.boolean(),
  secret_id_bound_cidrs: strings,
  secret_id_num_uses: z.number(),
  secret_id_ttl: z.number(),
  token_bound_cidrs: strings,
  token_explicit_max_ttl: z.number(),
  token_max_ttl: z.number(),
  token_no_default_policy: z.boolean(),
  token_num_uses: z.number(),
  token_period: z.number(),
  token_policies: strings,
  token_ttl: z.number(),
  token_type: z.string(),
  policies: strings.optional(),
  period: z.number().optional(),
});
export type ApproleRoleData = z.input<typeof approleRoleData>;

const roleIdData = z.object({ role_id: z.string() });

/** A new secret id: the only time its value leaves core-sys. */
const secretIdCreatedData = z.object({
  secret_id: z.string(),
  secret_id_accessor: z.string(),
  secret_id_ttl: z.number(),
  secret_id_num_uses: z.number(),
});

/** secret-id/lookup and secret-id-accessor/lookup (Vault's secretIDCommon). */
export const approleSecretIdData = z.object({
  cidr_list: strings,
  creation_time: z.string(),
  expiration_time: z.string(),
  last_updated_time: z.string(),
  metadata: jsonObjectSchema,
  secret_id_accessor: z.string(),
  secret_id_num_uses: z.number(),
  secret_id_ttl: z.number(),
  token_bound_cidrs: strings,
});
export type ApproleSecretIdData = z.input<typeof approleSecretIdData>;

export const approleContracts = {
  roleList: engineContract('core.approle.role-list', { data: keysData }),
  roleExists: existenceContract('core.approle.role-exists'),
  roleWrite: engineContract('core.approle.role-write', {
    params: roleParams,
    body: approleRoleBodySchema.prefault({}),
    data: noData,
  }),
  roleRead: engineContract('core.approle.role-read', { params: roleParams, data: approleRoleData }),
  roleDelete: engineContract('core.approle.role-delete', { params: roleParams, data: noData }),
  roleIdRead: engineContract('core.approle.role-id-read', { params: roleParams, data: roleIdData }),
  roleIdWrite: engineContract('core.approle.role-id-write', {
    params: roleParams,
    body: roleIdBody.prefault({}),
    data: noData,
  }),
  secretIdCreate: engineContract('core.approle.secret-id-create', {
    params: roleParams,
    body: approleSecretIdBodySchema.prefault({}),
    data: secretIdCreatedData,
  }),
  customSecretId: engineContract('core.approle.custom-secret-id', {
    params: roleParams,
    body: approleSecretIdBodySchema.prefault({}),
    data: secretIdCreatedData,
  }),
  secretIdList: engineContract('core.approle.secret-id-list', { params: roleParams, data: keysData }),
  // No data when the secret id is unknown (Vault answers 204).
  secretIdLookup: engineContract('core.approle.secret-id-lookup', {
    params: roleParams,
    body: secretIdOnly.prefault({}),
    data: approleSecretIdData.nullable(),
  }),
  secretIdDestroy: engineContract('core.approle.secret-id-destroy', {
    params: roleParams,
    body: secretIdOnly.prefault({}),
    data: noData,
  }),
  accessorLookup: engineContract('core.approle.secret-id-accessor-lookup', {
    params: roleParams,
    body: accessorOnly.prefault({}),
    data: approleSecretIdData,
  }),
  accessorDestroy: engineContract('core.approle.secret-id-accessor-destroy', {
    params: roleParams,
    body: accessorOnly.prefault({}),
    data: noData,
  }),
  // role/:role_name/<field>: one field of a role (the path names which)
  roleFieldRead: engineContract('core.approle.role-field-read', {
    params: roleParams,
    data: approleRoleData.partial(),
  }),
  roleFieldWrite: engineContract('core.approle.role-field-write', {
    params: roleParams,
    body: approleRoleBodySchema.prefault({}),
    data: noData,
  }),
  roleFieldDelete: engineContract('core.approle.role-field-delete', { params: roleParams, data: noData }),
  tidySecretId: engineContract('core.approle.tidy-secret-id', { data: noData }),
  // The token is in the auth block.
  login: engineContract('core.approle.login', { body: loginBody.prefault({}), data: noData }),
};

const ROLE = 'role/:role_name';

/** The per-field role routes Vault has (path_role.go), each read/update/delete of one field. */
const ROLE_FIELD_ROUTES: [field: string, synopsis: string][] = [
  ['policies', 'Read, set or clear the token policies of a role.'],
  ['secret-id-num-uses', 'Read, set or reset the default number of uses of new secret ids.'],
  ['secret-id-ttl', 'Read, set or reset the default TTL of new secret ids.'],
  ['bind-secret-id', 'Read, set or reset whether login needs a secret id.'],
  ['secret-id-bound-cidrs', 'Read, set or clear the CIDR blocks allowed to log in with a role.'],
  ['token-bound-cidrs', 'Read, set or clear the CIDR blocks allowed to use issued tokens.'],
  ['period', 'Read, set or reset the period of issued tokens.'],
  ['token-num-uses', 'Read, set or reset the number of uses of issued tokens.'],
  ['token-ttl', 'Read, set or reset the initial TTL of issued tokens.'],
  ['token-max-ttl', 'Read, set or reset the maximum lifetime of issued tokens.'],
];

export const approleRoutes: RouteTable = {
  engine: 'approle',
  service: 'core-sys',
  help: [
    'The AppRole auth method lets machines and services authenticate with a role id and a secret id.',
    '',
    'Roles are managed under role/; each has a role id (role-id) and issues secret ids',
    '(secret-id); logging in at login with both returns a token with the role’s token settings.',
  ].join('\n'),
  routes: [
    {
      pattern: 'role',
      synopsis: 'List the roles of this auth method.',
      operations: { list: { contract: approleContracts.roleList, summary: 'List roles' } },
    },
    {
      pattern: ROLE,
      replicated: true,
      synopsis: 'Manage a role: its secret id constraints and the tokens it issues at login.',
      description: 'Creating a role generates its role id; updating changes only the given fields.',
      existenceCheck: approleContracts.roleExists,
      operations: {
        create: { contract: approleContracts.roleWrite, summary: 'Create a role' },
        update: { contract: approleContracts.roleWrite, summary: 'Update a role' },
        read: { contract: approleContracts.roleRead, summary: 'Read a role' },
        delete: { contract: approleContracts.roleDelete, summary: 'Delete a role and its secret ids' },
      },
    },
    ...ROLE_FIELD_ROUTES.map(([field, synopsis]) => ({
      pattern: `${ROLE}/${field}`,
      replicated: true,
      synopsis,
      operations: {
        read: { contract: approleContracts.roleFieldRead, summary: `Read ${field}` },
        update: { contract: approleContracts.roleFieldWrite, summary: `Set ${field}` },
        delete: { contract: approleContracts.roleFieldDelete, summary: `Reset ${field}` },
      },
    })),
    {
      pattern: `${ROLE}/role-id`,
      replicated: true,
      synopsis: "Read or set a role's role id.",
      operations: {
        read: { contract: approleContracts.roleIdRead, summary: 'Read the role id' },
        update: { contract: approleContracts.roleIdWrite, summary: 'Set a custom role id' },
      },
    },
    {
      pattern: `${ROLE}/secret-id`,
      replicated: true,
      synopsis: 'Generate a secret id for a role, or list the accessors of its secret ids.',
      operations: {
        update: { contract: approleContracts.secretIdCreate, summary: 'Generate a secret id' },
        list: { contract: approleContracts.secretIdList, summary: 'List secret id accessors' },
      },
    },
    {
      pattern: `${ROLE}/custom-secret-id`,
      replicated: true,
      synopsis: 'Register a secret id of your choice for a role.',
      operations: {
        update: { contract: approleContracts.customSecretId, summary: 'Register a custom secret id' },
      },
    },
    {
      pattern: `${ROLE}/secret-id/lookup`,
      synopsis: 'Read the properties of a secret id.',
      operations: {
        update: { contract: approleContracts.secretIdLookup, summary: 'Look up a secret id' },
      },
    },
    {
      pattern: `${ROLE}/secret-id/destroy`,
      replicated: true,
      synopsis: 'Destroy a secret id.',
      operations: {
        update: { contract: approleContracts.secretIdDestroy, summary: 'Destroy a secret id' },
        delete: { contract: approleContracts.secretIdDestroy, summary: 'Destroy a secret id' },
      },
    },
    {
      pattern: `${ROLE}/secret-id-accessor/lookup`,
      synopsis: 'Read the properties of a secret id by its accessor.',
      operations: {
        update: { contract: approleContracts.accessorLookup, summary: 'Look up a secret id by accessor' },
      },
    },
    {
      pattern: `${ROLE}/secret-id-accessor/destroy`,
      replicated: true,
      synopsis: 'Destroy a secret id by its accessor.',
      operations: {
        update: { contract: approleContracts.accessorDestroy, summary: 'Destroy a secret id by accessor' },
        delete: { contract: approleContracts.accessorDestroy, summary: 'Destroy a secret id by accessor' },
      },
    },
    {
      pattern: 'tidy/secret-id',
      synopsis: 'Clean up expired secret ids.',
      description: 'Destroys the secret ids past their TTL, as the periodic sweep does. Answers 202.',
      operations: { update: { contract: approleContracts.tidySecretId, summary: 'Tidy secret ids' } },
    },
    {
      pattern: 'login',
      synopsis: 'Log in with a role id and a secret id.',
      description:
        'Answers a token in the auth block. Bad credentials answer 400 "invalid role or secret ID".',
      unauthenticated: true,
      operations: { update: { contract: approleContracts.login, summary: 'Log in' } },
    },
  ],
};
