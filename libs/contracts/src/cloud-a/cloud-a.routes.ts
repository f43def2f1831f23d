import type { OperationDef, RouteTable } from '../routes';
import { engineContract } from '../routes';
import {
  cloudAConfigBodySchema,
  cloudAConfigReadSchema,
  cloudACredsSchema,
  cloudAListSchema,
  cloudANameParams as params,
  cloudARoleBodySchema,
  cloudARoleReadSchema,
} from './cloud-a.schemas';

/** Contracts of the cloud-a engine (service "cloud-creds"). */
export const cloudA = {
  configWrite: engineContract('cloud-creds.cloud-a.config.write', { body: cloudAConfigBodySchema }),
  configRead: engineContract('cloud-creds.cloud-a.config.read', { data: cloudAConfigReadSchema }),
  configDelete: engineContract('cloud-creds.cloud-a.config.delete'),
  roleList: engineContract('cloud-creds.cloud-a.roles.list', { data: cloudAListSchema }),
  roleWrite: engineContract('cloud-creds.cloud-a.roles.write', { params, body: cloudARoleBodySchema }),
  roleRead: engineContract('cloud-creds.cloud-a.roles.read', { params, data: cloudARoleReadSchema }),
  roleDelete: engineContract('cloud-creds.cloud-a.roles.delete', { params }),
  creds: engineContract('cloud-creds.cloud-a.creds', { params, data: cloudACredsSchema }),
} as const;

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const a = cloudA;

/** Routes of a cloud-a mount (service "cloud-creds"). */
export const cloudARoutes: RouteTable = {
  engine: 'cloud-a',
  service: 'cloud-creds',
  help: 'cloud-a: ' + 'Azure service principals with role assignments and group memberships',
  routes: [
    {
      pattern: 'config',
      replicated: true,
      synopsis: 'Configure the tenant, subscription and service principal the engine acts as.',
      description:
        'Reads never return client_secret. Writes do not check the credentials. CLOUDA_* environment variables override the stored values.',
      operations: {
        read: op(a.configRead, 'Read the configuration'),
        create: op(a.configWrite, 'Write the configuration'),
        update: op(a.configWrite, 'Write the configuration'),
        delete: op(a.configDelete, 'Delete the configuration'),
      },
    },
    {
      pattern: 'roles',
      synopsis: 'List existing roles.',
      operations: { list: op(a.roleList, 'List roles') },
    },
    {
      pattern: 'roles/:name',
      replicated: true,
      synopsis: 'Manage the roles that creds are generated for.',
      description:
        'cloud_a_roles and cloud_a_groups are JSON arrays given as strings; application_object_id makes creds passwords on an existing application.',
      operations: {
        create: op(a.roleWrite, 'Create a role'),
        update: op(a.roleWrite, 'Update a role'),
        read: op(a.roleRead, 'Read a role'),
        delete: op(a.roleDelete, 'Delete a role'),
      },
    },
    {
      pattern: 'creds/:name',
      synopsis: 'Request service principal credentials for a role.',
      operations: { read: op(a.creds, 'Generate a client id and secret with a lease') },
    },
  ],
};
