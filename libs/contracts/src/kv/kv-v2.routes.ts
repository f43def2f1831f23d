import { z } from 'zod';
import type { OperationDef, RouteTable } from '../routes';
import { engineContract, existenceContract } from '../routes';
import {
  secretDataSchema,
  versionListInputSchema,
  versionMetadataSchema,
  versionNumberInputSchema,
} from './common';

/** Contracts of the versioned key-value engine (kv mounts with options.version "2"). */
export const kvV2 = {
  configRead: engineContract('kv.v2.config.read'),
  configWrite: engineContract('kv.v2.config.write'),
  dataRead: engineContract('kv.v2.data.read'),
  dataWrite: engineContract('kv.v2.data.write'),
  dataPatch: engineContract('kv.v2.data.patch'),
  dataDelete: engineContract('kv.v2.data.delete'),
  dataExists: existenceContract('kv.v2.data.exists'),
  subkeysRead: engineContract('kv.v2.subkeys.read'),
  versionsDelete: engineContract('kv.v2.versions.delete'),
  versionsUndelete: engineContract('kv.v2.versions.undelete'),
  versionsDestroy: engineContract('kv.v2.versions.destroy'),
  metadataRead: engineContract('kv.v2.metadata.read'),
  metadataWrite: engineContract('kv.v2.metadata.write'),
  metadataPatch: engineContract('kv.v2.metadata.patch'),
  metadataDelete: engineContract('kv.v2.metadata.delete'),
  metadataList: engineContract('kv.v2.metadata.list'),
  metadataExists: existenceContract('kv.v2.metadata.exists'),
  /** Anything else on a kv v2 mount: 404 with Vault's "Invalid path for a versioned K/V" warning. */
  invalidPath: engineContract('kv.v2.invalid-path'),
} as const;

const durationInput = z
  .union([z.string(), z.number()])
  .describe('A duration such as "1h30m", or a number of seconds.');
const boolInput = z.union([z.boolean(), z.string(), z.number()]);
const intInput = z.union([z.number(), z.string()]);

export const kvV2ConfigBodySchema = z.object({
  max_versions: intInput.optional().describe('Versions kept per key; 0 means 10.'),
  cas_required: boolInput.optional().describe('Every write must carry options.cas.'),
  delete_version_after: durationInput
    .optional()
    .describe('Soft-delete versions this long after they are written; 0 clears, negative disables.'),
});

export const kvV2DataBodySchema = z.object({
  data: secretDataSchema.optional(),
  options: z
    .object({
      cas: versionNumberInputSchema
        .optional()
        .describe(
          'Check-and-set: the write succeeds only if this equals the current version (0: key must not exist).',
        ),
    })
    .catchall(z.unknown())
    .optional(),
});

export const kvV2VersionsBodySchema = z.object({ versions: versionListInputSchema.optional() });

export const kvV2MetadataBodySchema = z.object({
  max_versions: intInput.optional().describe('Versions kept for this key; 0 means the engine setting.'),
  cas_required: boolInput.optional(),
  delete_version_after: durationInput.optional().describe('Capped by the engine setting.'),
  custom_metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Up to 64 string pairs; in a PATCH, null removes a key.'),
});

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the kv contracts declare it next
const writeResponseData = versionMetadataSchema;
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the kv contracts declare it next
const readResponseData = z.object({
  data: secretDataSchema.nullable(),
  metadata: versionMetadataSchema,
});
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the kv contracts declare it next
const metadataResponseData = z.object({
  cas_required: z.boolean(),
  created_time: z.string(),
  current_version: z.number().int(),
  custom_metadata: z.record(z.string(), z.string()).nullable(),
  delete_version_after: z.string(),
  max_versions: z.number().int(),
  oldest_version: z.number().int(),
  updated_time: z.string(),
  versions: z.record(
    z.string(),
    z.object({ created_time: z.string(), deletion_time: z.string(), destroyed: z.boolean() }),
  ),
});

const dataWrite: OperationDef = {
  contract: kvV2.dataWrite,
  summary: 'Write a new version of the secret.',
};
const metadataWrite: OperationDef = {
  contract: kvV2.metadataWrite,
  summary: "Set the key's settings and custom metadata (no new version is created).",
};
const invalid: OperationDef = { contract: kvV2.invalidPath, summary: 'Not a kv v2 API path.' };

export const kvV2Routes: RouteTable = {
  engine: 'kv-v2',
  service: 'kv',
  help: [
    'The kv secrets engine (version 2) stores versioned secrets.',
    '',
    'Paths: `config`, `data/:path`, `subkeys/:path`, `delete/:path`, `undelete/:path`,',
    '`destroy/:path` and `metadata/:path`. Writes may use check-and-set (`options.cas`);',
    'old versions beyond max_versions are removed for good; destroy erases the data key of',
    'each destroyed version so its data cannot be recovered.',
  ].join('\n'),
  routes: [
    {
      pattern: 'config',
      synopsis: 'Engine settings applied to every key.',
      operations: {
        read: {
          contract: kvV2.configRead,
          summary: 'Read the engine settings.',
        },
        update: {
          contract: kvV2.configWrite,
          summary: 'Write the engine settings.',
        },
      },
    },
    {
      pattern: 'data/:path*',
      synopsis: 'Write, patch, read and delete versions of a secret.',
      existenceCheck: kvV2.dataExists,
      operations: {
        read: {
          contract: kvV2.dataRead,
          summary: 'Read the latest version of the secret, or the version given.',
        },
        create: dataWrite,
        update: dataWrite,
        patch: {
          contract: kvV2.dataPatch,
          summary: 'Apply a JSON merge patch to the current version, creating a new version.',
          mergePatch: true,
        },
        delete: { contract: kvV2.dataDelete, summary: 'Soft-delete the latest version.' },
      },
    },
    {
      pattern: 'subkeys/:path*',
      synopsis: 'Read the structure of a secret with every value replaced by null.',
      operations: {
        read: {
          contract: kvV2.subkeysRead,
          summary: 'Read the subkeys of a version of the secret.',
        },
      },
    },
    {
      pattern: 'delete/:path*',
      synopsis: 'Soft-delete versions of a secret.',
      operations: {
        update: {
          contract: kvV2.versionsDelete,
          summary: 'Mark the versions as deleted; their data is kept.',
        },
      },
    },
    {
      pattern: 'undelete/:path*',
      synopsis: 'Restore soft-deleted versions of a secret.',
      operations: {
        update: {
          contract: kvV2.versionsUndelete,
          summary: 'Restore the versions.',
        },
      },
    },
    {
      pattern: 'destroy/:path*',
      synopsis: 'Permanently destroy versions of a secret.',
      operations: {
        update: {
          contract: kvV2.versionsDestroy,
          summary: 'Destroy the versions: their data keys are erased.',
        },
      },
    },
    {
      pattern: 'metadata/:path*?',
      synopsis: 'Key metadata and settings; list keys; remove a key and all its versions.',
      existenceCheck: kvV2.metadataExists,
      operations: {
        read: {
          contract: kvV2.metadataRead,
          summary: 'Read the metadata and version history of the key.',
        },
        create: metadataWrite,
        update: metadataWrite,
        patch: {
          contract: kvV2.metadataPatch,
          summary: "Patch the key's settings and custom metadata (JSON merge patch).",
          mergePatch: true,
        },
        delete: {
          contract: kvV2.metadataDelete,
          summary: 'Remove the key, its metadata and every version for good.',
        },
        list: {
          contract: kvV2.metadataList,
          summary: 'List the keys and folders under the path.',
        },
      },
    },
    {
      pattern: ':path*?',
      synopsis: 'Paths outside the kv v2 API answer 404 with a warning.',
      operations: { read: invalid, update: invalid, patch: invalid, delete: invalid, list: invalid },
    },
  ],
};
