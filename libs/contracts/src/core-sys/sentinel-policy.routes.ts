import { z } from 'zod';
import { defineContract } from '../contract';
import { weakString, weakStringList } from '../fields';
import { engineContract, existenceContract, type OperationDef, type RouteDef } from '../routes';
import { keysData } from './core-sys-data.schema';

/**
 * Role and endpoint governing policies (Vault Enterprise's sys/policies/rgp and sys/policies/egp):
 * policies in Coffer's Sentinel subset (libs/sentinel, docs/policies.md) with an enforcement level;
 * EGPs also name the paths they govern. Managed from the root or administrative namespace only.
 */

export const SENTINEL_ENFORCEMENT_LEVELS = ['advisory', 'soft-mandatory', 'hard-mandatory'] as const;
export type SentinelEnforcementLevel = (typeof SENTINEL_ENFORCEMENT_LEVELS)[number];

const nameParams = z.object({ name: z.string().default('') }).prefault({});

export const sysSentinelPolicyBody = z
  .object({
    policy: weakString({
      default: '',
      description: 'The policy in the Sentinel subset of docs/policies.md, optionally base64-encoded.',
    }),
    enforcement_level: weakString({
      default: '',
      description: 'advisory, soft-mandatory or hard-mandatory.',
    }),
    paths: weakStringList({
      default: [],
      description:
        'EGP only: the paths it governs (a list or a comma-separated string); "prefix/*" globs, "*" all.',
    }),
  })
  .prefault({});
export type SysSentinelPolicyBody = z.output<typeof sysSentinelPolicyBody>;

export const rgpData = z.object({ name: z.string(), policy: z.string(), enforcement_level: z.string() });
export const egpData = z.object({
  name: z.string(),
  policy: z.string(),
  enforcement_level: z.string(),
  paths: z.array(z.string()),
});
export const egpPathEntry = z.object({ path: z.string(), glob: z.boolean() });
export const egpListData = z.object({
  keys: z.array(z.string()),
  name_path_map: z.record(z.string(), z.array(egpPathEntry)),
});

export const sentinelPolicyContracts = {
  rgpList: engineContract('core.sys.sentinel-rgp.list', { data: keysData }),
  rgpRead: engineContract('core.sys.sentinel-rgp.read', { params: nameParams, data: rgpData }),
  rgpWrite: engineContract('core.sys.sentinel-rgp.write', {
    params: nameParams,
    body: sysSentinelPolicyBody,
  }),
  rgpDelete: engineContract('core.sys.sentinel-rgp.delete', { params: nameParams }),
  rgpExists: existenceContract('core.sys.sentinel-rgp.exists'),
  egpList: engineContract('core.sys.sentinel-egp.list', { data: egpListData }),
  egpRead: engineContract('core.sys.sentinel-egp.read', { params: nameParams, data: egpData }),
  egpWrite: engineContract('core.sys.sentinel-egp.write', {
    params: nameParams,
    body: sysSentinelPolicyBody,
  }),
  egpDelete: engineContract('core.sys.sentinel-egp.delete', { params: nameParams }),
  egpExists: existenceContract('core.sys.sentinel-egp.exists'),
};

export const sentinelPolicyEntry = z.object({
  kind: z.enum(['rgp', 'egp']),
  name: z.string(),
  policy: z.string(),
  enforcement_level: z.enum(SENTINEL_ENFORCEMENT_LEVELS),
  /** EGP only */
  paths: z.array(z.string()),
  /** stream version: the gateway keeps one compiled policy per (kind, name, version) */
  version: z.number().int(),
});
export type SentinelPolicyEntry = z.infer<typeof sentinelPolicyEntry>;

/** Every RGP and EGP, for the gateway (cached; dropped on the "policy" invalidation). */
export const coreSentinelPolicies = defineContract(
  'core.sentinel.policies',
  z.object({}),
  z.object({ policies: z.array(sentinelPolicyEntry) }),
);

/** What a Sentinel policy sees of a stored token (`token.*`); null for a token not stored (batch). */
export const sentinelTokenFacts = z.object({
  type: z.string(),
  /** unix ms */
  creation_time: z.number(),
  creation_ttl: z.number(),
  explicit_max_ttl: z.number(),
  period: z.number(),
  num_uses: z.number(),
  path: z.string(),
  role: z.string(),
  display_name: z.string(),
  entity_id: z.string(),
  metadata: z.record(z.string(), z.string()),
});
export type SentinelTokenFacts = z.infer<typeof sentinelTokenFacts>;
export const coreSentinelTokenFacts = defineContract(
  'core.sentinel.token-facts',
  z.object({ tokenRef: z.string() }),
  sentinelTokenFacts.nullable(),
);

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const c = sentinelPolicyContracts;

export const sentinelPolicyRouteDefs: RouteDef[] = [
  {
    pattern: 'policies/rgp',
    synopsis: 'List the configured role governing policies.',
    operations: { list: op(c.rgpList, 'Lists RGPs.') },
  },
  {
    pattern: 'policies/rgp/:name',
    replicated: true,
    synopsis: 'Read, Modify, or Delete a role governing policy.',
    description:
      'A Sentinel policy (docs/policies.md) attached to tokens through their policy names, with an enforcement level.',
    existenceCheck: c.rgpExists,
    operations: {
      read: op(c.rgpRead, 'Reads an RGP.'),
      create: op(c.rgpWrite, 'Writes an RGP.'),
      update: op(c.rgpWrite, 'Writes an RGP.'),
      delete: op(c.rgpDelete, 'Deletes an RGP.'),
    },
  },
  {
    pattern: 'policies/egp',
    synopsis: 'List the configured endpoint governing policies.',
    operations: { list: op(c.egpList, 'Lists EGPs and the paths they govern.') },
  },
  {
    pattern: 'policies/egp/:name',
    replicated: true,
    synopsis: 'Read, Modify, or Delete an endpoint governing policy.',
    description:
      'A Sentinel policy (docs/policies.md) attached to request paths ("prefix/*" globs, "*" for every authenticated and login request), with an enforcement level.',
    existenceCheck: c.egpExists,
    operations: {
      read: op(c.egpRead, 'Reads an EGP.'),
      create: op(c.egpWrite, 'Writes an EGP.'),
      update: op(c.egpWrite, 'Writes an EGP.'),
      delete: op(c.egpDelete, 'Deletes an EGP.'),
    },
  },
];
