import type { RouteTable } from '../routes';
import { engineContract, existenceContract } from '../routes';
import { flatWriteBodySchema, listResponseDataSchema, pathParamsSchema, secretDataSchema } from './common';

const params = pathParamsSchema;

/** Contracts of the unversioned key-value engine (kv mounts with options.version "1" or unset). */
export const kvV1 = {
  read: engineContract('kv.v1.read', { params, data: secretDataSchema }),
  write: engineContract('kv.v1.write', { params, body: flatWriteBodySchema }),
  delete: engineContract('kv.v1.delete', { params }),
  list: engineContract('kv.v1.list', { params, data: listResponseDataSchema }),
  exists: existenceContract('kv.v1.exists'),
} as const;

const write = {
  contract: kvV1.write,
  summary: 'Store a secret at the path, replacing any secret stored there.',
};

export const kvV1Routes: RouteTable = {
  engine: 'kv-v1',
  service: 'kv',
  help: [
    'The kv secrets engine (version 1) stores arbitrary secrets at paths.',
    '',
    'Each write replaces the secret at its path. A key named `ttl` (a duration such as `1h`',
    'or a number of seconds) makes reads return `lease_duration` as advice to re-read the',
    'secret; no lease is created. LIST on a folder returns the names under it; folders end',
    'with `/`.',
  ].join('\n'),
  routes: [
    {
      pattern: ':path*?',
      synopsis: 'Pass-through secret storage: read, write, list and delete secrets.',
      // a performance secondary forwards writes to a replicated mount to its primary
      replicated: true,
      description:
        'Secrets are stored encrypted, each write with its own data key; a delete or an overwrite ' +
        'erases the previous data key, so the old value cannot be recovered.',
      existenceCheck: kvV1.exists,
      operations: {
        read: {
          contract: kvV1.read,
          summary: 'Read the secret at the path.',
        },
        create: write,
        update: write,
        delete: { contract: kvV1.delete, summary: 'Delete the secret at the path.' },
        list: {
          contract: kvV1.list,
          summary: 'List the secret names and folders under the path.',
        },
      },
    },
  ],
};
