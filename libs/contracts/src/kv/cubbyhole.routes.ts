import type { RouteTable } from '../routes';
import { engineContract, existenceContract } from '../routes';
import { flatWriteBodySchema, listResponseDataSchema, pathParamsSchema, secretDataSchema } from './common';

const params = pathParamsSchema;

/** Contracts of the cubbyhole engine: private storage of the calling token (CallerContext.tokenRef). */
export const cubbyhole = {
  read: engineContract('kv.cubbyhole.read', { params, data: secretDataSchema }),
  write: engineContract('kv.cubbyhole.write', { params, body: flatWriteBodySchema }),
  delete: engineContract('kv.cubbyhole.delete', { params }),
  list: engineContract('kv.cubbyhole.list', { params, data: listResponseDataSchema }),
  exists: existenceContract('kv.cubbyhole.exists'),
} as const;

const write = {
  contract: cubbyhole.write,
  summary: "Store a secret in the calling token's cubbyhole, replacing any secret at the path.",
};

export const cubbyholeRoutes: RouteTable = {
  engine: 'cubbyhole',
  service: 'kv',
  help: [
    'The cubbyhole secrets engine gives every token its own private key/value storage.',
    '',
    "No token can read another token's cubbyhole, not even a root token. When the token is",
    'revoked or expires, its cubbyhole is destroyed.',
  ].join('\n'),
  routes: [
    {
      pattern: ':path*?',
      synopsis: "Read, write, list and delete secrets in the calling token's cubbyhole.",
      existenceCheck: cubbyhole.exists,
      operations: {
        read: {
          contract: cubbyhole.read,
          summary: 'Read the secret at the path.',
        },
        create: write,
        update: write,
        delete: { contract: cubbyhole.delete, summary: 'Delete the secret at the path.' },
        list: {
          contract: cubbyhole.list,
          summary: 'List the secret names and folders under the path.',
        },
      },
    },
  ],
};
