import type { OperationDef, RouteTable } from '../routes';
import { engineContract } from '../routes';
import {
  cloudBCredsFieldsSchema,
  cloudBCredsSchema,
  cloudBLeaseBodySchema,
  cloudBLeaseReadSchema,
  cloudBListSchema,
  cloudBNameParams as params,
  cloudBRoleBodySchema,
  cloudBRoleReadSchema,
  cloudBRootConfigBodySchema,
  cloudBRootConfigReadSchema,
  cloudBRotateRootSchema,
} from './cloud-b.schemas';

/** Contracts of the cloud-b engine (service "cloud-creds"). */
export const cloudB = {
  rootWrite: engineContract('cloud-creds.b.config.root.write', { body: cloudBRootConfigBodySchema }),
  rootRead: engineContract('cloud-creds.b.config.root.read', { data: cloudBRootConfigReadSchema }),
  rotateRoot: engineContract('cloud-creds.b.config.rotate-root', { data: cloudBRotateRootSchema }),
  leaseWrite: engineContract('cloud-creds.b.config.lease.write', { body: cloudBLeaseBodySchema }),
  leaseRead: engineContract('cloud-creds.b.config.lease.read', { data: cloudBLeaseReadSchema }),
  roleList: engineContract('cloud-creds.b.roles.list', { data: cloudBListSchema }),
  roleWrite: engineContract('cloud-creds.b.roles.write', { params, body: cloudBRoleBodySchema }),
  roleRead: engineContract('cloud-creds.b.roles.read', { params, data: cloudBRoleReadSchema }),
  roleDelete: engineContract('cloud-creds.b.roles.delete', { params }),
  creds: engineContract('cloud-creds.b.creds', {
    params,
    body: cloudBCredsFieldsSchema,
    query: cloudBCredsFieldsSchema,
    data: cloudBCredsSchema,
  }),
  sts: engineContract('cloud-creds.b.sts', {
    params,
    body: cloudBCredsFieldsSchema,
    query: cloudBCredsFieldsSchema,
    data: cloudBCredsSchema,
  }),
} as const;

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const b = cloudB;

/** Routes of a cloud-b mount (service "cloud-creds"). */
export const cloudBRoutes: RouteTable = {
  engine: 'cloud-b',
  service: 'cloud-creds',
  help: [
    'The cloud-b secrets engine generates AWS access credentials by role: IAM users with their',
    'policies and groups (revoked with their lease), assumed-role sessions and federation tokens.',
  ].join('\n'),
  routes: [
    {
      pattern: 'config/root',
      replicated: true,
      synopsis: 'Configure the root credentials that are used to manage IAM.',
      description:
        'Credentials: this payload, else CLOUDB_ACCESS_KEY / CLOUDB_SECRET_KEY, else the shared ' +
        'credentials file, else the instance or task role. Reads never return secret_key.',
      operations: {
        read: op(b.rootRead, 'Read the root configuration'),
        create: op(b.rootWrite, 'Write the root configuration'),
        update: op(b.rootWrite, 'Write the root configuration'),
      },
    },
    {
      pattern: 'config/rotate-root',
      replicated: true,
      synopsis: 'Request to rotate the AWS credentials used by Vault',
      description:
        'Creates a new access key for the configured IAM user, switches to it, deletes the old one.',
      operations: {
        create: op(b.rotateRoot, 'Rotate the root access key'),
        update: op(b.rotateRoot, 'Rotate the root access key'),
      },
    },
    {
      pattern: 'config/lease',
      replicated: true,
      synopsis: 'Configure the default lease information for generated credentials.',
      operations: {
        read: op(b.leaseRead, 'Read the lease configuration'),
        create: op(b.leaseWrite, 'Write the lease configuration'),
        update: op(b.leaseWrite, 'Write the lease configuration'),
      },
    },
    {
      pattern: 'roles',
      synopsis: 'List the existing roles in this backend',
      operations: { list: op(b.roleList, 'List roles') },
    },
    {
      pattern: 'roles/:name',
      replicated: true,
      synopsis: 'Read, write and reference IAM policies that access keys can be made for.',
      operations: {
        create: op(b.roleWrite, 'Create a role'),
        update: op(b.roleWrite, 'Update a role'),
        read: op(b.roleRead, 'Read a role'),
        delete: op(b.roleDelete, 'Delete a role'),
      },
    },
    {
      pattern: 'creds/:name',
      synopsis: 'Generate AWS credentials from a specific Vault role.',
      operations: {
        read: op(b.creds, 'Generate credentials'),
        create: op(b.creds, 'Generate credentials'),
        update: op(b.creds, 'Generate credentials'),
      },
    },
    {
      pattern: 'sts/:name',
      synopsis: 'Generate AWS credentials from a specific Vault role.',
      operations: {
        read: op(b.sts, 'Generate STS credentials'),
        create: op(b.sts, 'Generate STS credentials'),
        update: op(b.sts, 'Generate STS credentials'),
      },
    },
  ],
};
