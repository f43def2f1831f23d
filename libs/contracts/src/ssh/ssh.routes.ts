import { z } from 'zod';
import type { OperationDef, RouteTable } from '../routes';
import { engineContract } from '../routes';
import {
  nameParamsSchema as params,
  sshCaWriteBodySchema,
  sshCredsBodySchema,
  sshCredsDataSchema,
  sshKeyWriteBodySchema,
  sshLookupBodySchema,
  sshPublicKeyDataSchema,
  sshRoleListSchema,
  sshRoleReadSchema,
  sshRolesDataSchema,
  sshRoleWriteBodySchema,
  sshSignBodySchema,
  sshSignDataSchema,
  sshVerifyBodySchema,
  sshVerifyDataSchema,
  sshZeroAddressBodySchema,
} from './ssh.schemas';

/** Contracts of the SSH engine (service "ssh"). */
export const ssh = {
  keyWrite: engineContract('ssh.keys.write', { params, body: sshKeyWriteBodySchema }),
  keyDelete: engineContract('ssh.keys.delete', { params }),
  roleWrite: engineContract('ssh.roles.write', { params, body: sshRoleWriteBodySchema }),
  roleRead: engineContract('ssh.roles.read', { params, data: sshRoleReadSchema }),
  roleDelete: engineContract('ssh.roles.delete', { params }),
  roleList: engineContract('ssh.roles.list', { data: sshRoleListSchema }),
  zeroAddressRead: engineContract('ssh.zeroaddress.read', { data: sshRolesDataSchema }),
  zeroAddressWrite: engineContract('ssh.zeroaddress.write', { body: sshZeroAddressBodySchema }),
  zeroAddressDelete: engineContract('ssh.zeroaddress.delete'),
  creds: engineContract('ssh.creds', { params, body: sshCredsBodySchema, data: sshCredsDataSchema }),
  lookup: engineContract('ssh.lookup', { body: sshLookupBodySchema, data: sshRolesDataSchema }),
  verify: engineContract('ssh.verify', { body: sshVerifyBodySchema, data: sshVerifyDataSchema }),
  caWrite: engineContract('ssh.ca.write', { body: sshCaWriteBodySchema, data: sshPublicKeyDataSchema }),
  caRead: engineContract('ssh.ca.read', { data: sshPublicKeyDataSchema }),
  caDelete: engineContract('ssh.ca.delete'),
  publicKey: engineContract('ssh.public-key', { raw: z.string() }),
  sign: engineContract('ssh.sign', { params, body: sshSignBodySchema, data: sshSignDataSchema }),
} as const;

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });

/**
 * `replicated`: the CA, registered keys, roles and zero-address list are the primary's (a
 * performance secondary forwards their writes); creds, verify, lookup and sign run where they are
 * asked (OTPs are local to the cluster that issued them, as Vault's `otp/` local storage).
 */
export const sshRoutes: RouteTable = {
  engine: 'ssh',
  service: 'ssh',
  help: [
    'The SSH secrets engine signs SSH certificates with its CA (ca roles), hands out one-time',
    'passwords that a host verifies once (otp roles), and installs short-lived keys on hosts',
    '(dynamic roles, deprecated).',
  ].join('\n'),
  routes: [
    {
      pattern: 'keys/:name',
      replicated: true,
      synopsis: 'Register a shared private key with Vault.',
      description: 'Dynamic roles log in to hosts as the admin user with this key.',
      operations: {
        create: op(ssh.keyWrite, 'Register a key'),
        update: op(ssh.keyWrite, 'Replace a key'),
        delete: op(ssh.keyDelete, 'Delete a key'),
      },
    },
    {
      pattern: 'roles',
      synopsis: 'Manage the roles that can be created with this backend.',
      operations: { list: op(ssh.roleList, 'List roles, with key_info naming their key types') },
    },
    {
      pattern: 'roles/:name',
      replicated: true,
      synopsis: 'Manage the roles that can be created with this backend.',
      description: "A role's key_type (otp, dynamic, ca) decides what credentials it issues.",
      operations: {
        create: op(ssh.roleWrite, 'Create a role'),
        update: op(ssh.roleWrite, 'Replace a role'),
        read: op(ssh.roleRead, 'Read a role'),
        delete: op(ssh.roleDelete, 'Delete a role'),
      },
    },
    {
      pattern: 'config/zeroaddress',
      replicated: true,
      synopsis: 'Assign zero address as default CIDR block for select roles.',
      operations: {
        read: op(ssh.zeroAddressRead, 'Read the zero-address roles'),
        create: op(ssh.zeroAddressWrite, 'Set the zero-address roles'),
        update: op(ssh.zeroAddressWrite, 'Set the zero-address roles'),
        delete: op(ssh.zeroAddressDelete, 'Clear the zero-address roles'),
      },
    },
    {
      pattern: 'creds/:name',
      synopsis: 'Creates a credential for establishing SSH connection with the remote host.',
      operations: {
        create: op(ssh.creds, 'Create a one-time password or a dynamic key'),
        update: op(ssh.creds, 'Create a one-time password or a dynamic key'),
      },
    },
    {
      pattern: 'lookup',
      synopsis: 'List all the roles associated with the given IP address.',
      operations: {
        create: op(ssh.lookup, 'Roles whose CIDR blocks contain the IP'),
        update: op(ssh.lookup, 'Roles whose CIDR blocks contain the IP'),
      },
    },
    {
      pattern: 'verify',
      synopsis: 'Validate the OTP provided by Vault SSH Agent.',
      description: 'Consumes the OTP: a second verify of the same OTP fails.',
      unauthenticated: true,
      operations: {
        create: op(ssh.verify, 'Verify and consume a one-time password'),
        update: op(ssh.verify, 'Verify and consume a one-time password'),
      },
    },
    {
      pattern: 'config/ca',
      replicated: true,
      synopsis: 'Set the SSH private key used for signing certificates.',
      description:
        'Generates a key (RSA 4096 by default) or takes a submitted key pair (RSA, ECDSA or ed25519).',
      operations: {
        read: op(ssh.caRead, 'Read the CA public key'),
        create: op(ssh.caWrite, 'Generate or submit the CA key'),
        update: op(ssh.caWrite, 'Generate or submit the CA key'),
        delete: op(ssh.caDelete, 'Delete the CA key'),
      },
    },
    {
      pattern: 'public_key',
      synopsis: 'Retrieve the public key.',
      description: 'The CA public key in OpenSSH format, as text/plain (for TrustedUserCAKeys).',
      unauthenticated: true,
      operations: { read: op(ssh.publicKey, 'Read the CA public key as text') },
    },
    {
      pattern: 'sign/:name',
      synopsis: 'Request signing an SSH key using a certain role with the provided details.',
      operations: {
        create: op(ssh.sign, 'Sign a public key'),
        update: op(ssh.sign, 'Sign a public key'),
      },
    },
  ],
};
