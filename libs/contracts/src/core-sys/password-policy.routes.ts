import { z } from 'zod';
import { defineContract } from '../contract';
import { weakString } from '../fields';
import { engineContract, type OperationDef, type RouteDef } from '../routes';
import { keysData } from './core-sys-data.schema';

/**
 * sys/policies/password/* (Vault's password policies: HCL `length` and `rule "charset"` blocks,
 * and `generate`), and the contract engines call to generate a password from a named policy.
 */
const nameParams = z.object({ name: z.string().default('') }).prefault({});

export const passwordPolicyContracts = {
  list: engineContract('core.sys.password-policies.list', { data: keysData }),
  write: engineContract('core.sys.password-policies.write', {
    params: nameParams,
    body: z
      .object({ policy: weakString({ default: '', description: 'The policy in HCL (or base64 of it).' }) })
      .prefault({}),
  }),
  read: engineContract('core.sys.password-policies.read', {
    params: nameParams,
    data: z.object({ policy: z.string() }),
  }),
  delete: engineContract('core.sys.password-policies.delete', { params: nameParams }),
  generate: engineContract('core.sys.password-policies.generate', {
    params: nameParams,
    data: z.object({ password: z.string() }),
  }),
};

/** A password from the named policy, for engines (directory `password_policy`); not_found when there is none. */
export const corePasswordGenerate = defineContract(
  'core.password-policy.generate',
  z.object({ name: z.string() }),
  z.object({ password: z.string() }),
);

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const c = passwordPolicyContracts;

export const passwordPolicyRouteDefs: RouteDef[] = [
  {
    pattern: 'policies/password',
    synopsis: 'List the existing password policies.',
    operations: { list: op(c.list, 'List password policies') },
  },
  {
    pattern: 'policies/password/:name',
    replicated: true,
    synopsis: 'Read, write and delete password policies.',
    description: 'A policy is HCL: length (4 to 100) and rule "charset" { charset, min-chars } blocks.',
    operations: {
      read: op(c.read, 'Read a password policy'),
      create: op(c.write, 'Write a password policy'),
      update: op(c.write, 'Write a password policy'),
      delete: op(c.delete, 'Delete a password policy'),
    },
  },
  {
    pattern: 'policies/password/:name/generate',
    synopsis: 'Generate a password from an existing password policy.',
    operations: { read: op(c.generate, 'Generate a password') },
  },
];
