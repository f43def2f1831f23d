import type { OperationDef, RouteTable } from '../routes';
import { engineContract, existenceContract } from '../routes';
import { listResponseDataSchema, pathParamsSchema, versionMetadataSchema } from './common';
import {
  kvV2ConfigBodySchema,
  kvV2ConfigDataSchema,
  kvV2DataBodySchema,
  kvV2MetadataBodySchema,
  kvV2MetadataDataSchema,
  kvV2MetadataPatchBodySchema,
  kvV2ReadDataSchema,
  kvV2SubkeysDataSchema,
  kvV2VersionsBodySchema,
  subkeysQuerySchema,
  versionQuerySchema,
} from './kv-v2.schema';

const params = pathParamsSchema;

/** Contracts of the versioned key-value engine (kv mounts with options.version "2"). */
export const kvV2 = {
  configRead: engineContract('kv.v2.config.read', { data: kvV2ConfigDataSchema }),
  configWrite: engineContract('kv.v2.config.write', { body: kvV2ConfigBodySchema }),
  dataRead: engineContract('kv.v2.data.read', {
    params,
    query: versionQuerySchema,
    data: kvV2ReadDataSchema,
  }),
  dataWrite: engineContract('kv.v2.data.write', {
    params,
    body: kvV2DataBodySchema,
    data: versionMetadataSchema,
  }),
  dataPatch: engineContract('kv.v2.data.patch', {
    params,
    body: kvV2DataBodySchema,
    data: versionMetadataSchema,
  }),
  dataDelete: engineContract('kv.v2.data.delete', { params }),
  dataExists: existenceContract('kv.v2.data.exists'),
  subkeysRead: engineContract('kv.v2.subkeys.read', {
    params,
    query: subkeysQuerySchema,
    data: kvV2SubkeysDataSchema,
  }),
  versionsDelete: engineContract('kv.v2.versions.delete', { params, body: kvV2VersionsBodySchema }),
  versionsUndelete: engineContract('kv.v2.versions.undelete', { params, body: kvV2VersionsBodySchema }),
  versionsDestroy: engineContract('kv.v2.versions.destroy', { params, body: kvV2VersionsBodySchema }),
  metadataRead: engineContract('kv.v2.metadata.read', { params, data: kvV2MetadataDataSchema }),
  metadataWrite: engineContract('kv.v2.metadata.write', { params, body: kvV2MetadataBodySchema }),
  metadataPatch: engineContract('kv.v2.metadata.patch', { params, body: kvV2MetadataPatchBodySchema }),
  metadataDelete: engineContract('kv.v2.metadata.delete', { params }),
  metadataList: engineContract('kv.v2.metadata.list', { params, data: listResponseDataSchema }),
  metadataExists: existenceContract('kv.v2.metadata.exists'),
  /** Anything else on a kv v2 mount: 404 with Vault's "Invalid path for a versioned K/V" warning. */
  invalidPath: engineContract('kv.v2.invalid-path', { params }),
} as const;

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
  // `replicated`: a performance secondary runs writes to a replicated mount on its primary (a
  // local mount's stay there); the invalid-path route answers 404 wherever it is served
  routes: [
    {
      pattern: 'config',
      synopsis: 'Engine settings applied to every key.',
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
      replicated: true,
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
