import type { OperationDef, RouteTable } from '../routes';
import { engineContract } from '../routes';
import {
  directoryCheckInBodySchema,
  directoryCheckInDataSchema,
  directoryCheckOutBodySchema,
  directoryCheckOutDataSchema,
  directoryConfigBodySchema,
  directoryConfigReadSchema,
  directoryCredsSchema,
  directoryListSchema,
  directoryNameParams as params,
  directoryRoleBodySchema,
  directoryRoleReadSchema,
  directorySetBodySchema,
  directorySetReadSchema,
  directoryStatusDataSchema,
} from './directory.schemas';

/** Contracts of the directory engine (service "directory"). */
export const directory = {
  configWrite: engineContract('directory.config.write', { body: directoryConfigBodySchema }),
  configRead: engineContract('directory.config.read', { data: directoryConfigReadSchema }),
  configDelete: engineContract('directory.config.delete'),
  roleList: engineContract('directory.roles.list', { data: directoryListSchema }),
  roleWrite: engineContract('directory.roles.write', { params, body: directoryRoleBodySchema }),
  roleRead: engineContract('directory.roles.read', { params, data: directoryRoleReadSchema }),
  roleDelete: engineContract('directory.roles.delete', { params }),
  creds: engineContract('directory.creds', { params, data: directoryCredsSchema }),
  rotateRoot: engineContract('directory.rotate-root'),
  rotateRole: engineContract('directory.rotate-role', { params }),
  setList: engineContract('directory.library.list', { data: directoryListSchema }),
  setWrite: engineContract('directory.library.write', { params, body: directorySetBodySchema }),
  setRead: engineContract('directory.library.read', { params, data: directorySetReadSchema }),
  setDelete: engineContract('directory.library.delete', { params }),
  checkOut: engineContract('directory.library.check-out', {
    params,
    body: directoryCheckOutBodySchema,
    data: directoryCheckOutDataSchema,
  }),
  checkIn: engineContract('directory.library.check-in', {
    params,
    body: directoryCheckInBodySchema,
    data: directoryCheckInDataSchema,
  }),
  manageCheckIn: engineContract('directory.library.manage-check-in', {
    params,
    body: directoryCheckInBodySchema,
    data: directoryCheckInDataSchema,
  }),
  status: engineContract('directory.library.status', { params, data: directoryStatusDataSchema }),
} as const;

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const d = directory;

/**
 * Routes flagged `replicated` change what a performance primary replicates (everything this engine
 * stores: Vault's LDAP engines keep only their write-ahead entries local), so a performance
 * secondary forwards their writes to its primary; reads, creds and status are served locally.
 * A check-out is not forwarded: its lease would be the secondary's, which the primary's lease
 * check does not see (it would check the account in behind the borrower), so a performance
 * secondary refuses check-outs from the primary's sets.
 */
export const directoryRoutes: RouteTable = {
  engine: 'directory',
  service: 'directory',
  help: [
    'The directory secrets engine rotates the passwords of LDAP / Active Directory service accounts',
    '(roles and their creds) and lends shared accounts from libraries (check-out / check-in).',
  ].join('\n'),
  routes: [
    {
      pattern: 'config',
      replicated: true,
      synopsis: 'Configure the directory to connect to, along with password options.',
      description: 'Reads never return bindpass. Writes do not check the credentials.',
      operations: {
        read: op(d.configRead, 'Read the configuration'),
        create: op(d.configWrite, 'Write the configuration'),
        update: op(d.configWrite, 'Write the configuration'),
        delete: op(d.configDelete, 'Delete the configuration'),
      },
    },
    {
      pattern: 'roles',
      synopsis: 'List the name of each role currently stored.',
      operations: { list: op(d.roleList, 'List roles') },
    },
    {
      pattern: 'roles/:name',
      replicated: true,
      synopsis: 'Manage roles to build links between the engine and directory service accounts.',
      operations: {
        create: op(d.roleWrite, 'Create a role'),
        update: op(d.roleWrite, 'Replace a role'),
        read: op(d.roleRead, 'Read a role'),
        delete: op(d.roleDelete, 'Delete a role and its creds'),
      },
    },
    {
      pattern: 'creds/:name',
      synopsis: "Retrieve a role's creds by role name.",
      operations: { read: op(d.creds, 'Read the current and last password') },
    },
    {
      pattern: 'rotate-root',
      replicated: true,
      synopsis: 'Request to rotate the root credentials.',
      operations: {
        read: op(d.rotateRoot, 'Rotate the bind password'),
        create: op(d.rotateRoot, 'Rotate the bind password'),
        update: op(d.rotateRoot, 'Rotate the bind password'),
      },
    },
    {
      pattern: 'rotate-role/:name',
      replicated: true,
      synopsis: "Request to rotate the role's credentials.",
      operations: {
        create: op(d.rotateRole, "Rotate a role's password"),
        update: op(d.rotateRole, "Rotate a role's password"),
      },
    },
    {
      pattern: 'library',
      synopsis: 'List the name of each set of service accounts currently stored.',
      operations: { list: op(d.setList, 'List library sets') },
    },
    {
      pattern: 'library/:name',
      replicated: true,
      synopsis: 'Build a library of service accounts that can be checked out.',
      description: 'Deleting a set is only possible when all its accounts are checked in.',
      operations: {
        create: op(d.setWrite, 'Create or update a library set'),
        update: op(d.setWrite, 'Create or update a library set'),
        read: op(d.setRead, 'Read a library set'),
        delete: op(d.setDelete, 'Delete a library set'),
      },
    },
    {
      pattern: 'library/:name/check-out',
      synopsis: 'Check a service account out from the library.',
      operations: {
        create: op(d.checkOut, 'Check out an account'),
        update: op(d.checkOut, 'Check out an account'),
      },
    },
    {
      pattern: 'library/:name/check-in',
      replicated: true,
      synopsis: 'Check service accounts in to the library.',
      operations: {
        create: op(d.checkIn, 'Check in accounts'),
        update: op(d.checkIn, 'Check in accounts'),
      },
    },
    {
      pattern: 'library/manage/:name/check-in',
      replicated: true,
      synopsis: 'Force checking service accounts in to the library.',
      operations: {
        create: op(d.manageCheckIn, 'Force check-in'),
        update: op(d.manageCheckIn, 'Force check-in'),
      },
    },
    {
      pattern: 'library/:name/status',
      synopsis: 'Check the status of the service accounts in a library set.',
      operations: { read: op(d.status, 'Status of the accounts') },
    },
  ],
};
