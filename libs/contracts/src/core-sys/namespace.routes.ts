import { z } from 'zod';
import { defineContract } from '../contract';
import { jsonObjectSchema, stringMapSchema } from '../fields';
import { engineContract, existenceContract, type OperationDef, type RouteDef } from '../routes';

/**
 * sys/namespaces (Vault Enterprise's API): a namespace is created inside the namespace of the
 * request, its `path` answered in full ("ns1/ns2/"), LIST keys relative to the request's one.
 */
const pathParams = z.object({ path: z.string().default('') }).prefault({});
const subpathParams = z.object({ subpath: z.string().default('') }).prefault({});

export const namespaceInfoData = z.object({
  id: z.string(),
  path: z.string(),
  custom_metadata: stringMapSchema,
});
export type NamespaceInfoData = z.infer<typeof namespaceInfoData>;

export const namespaceContracts = {
  list: engineContract('core.sys.namespaces.list', {
    data: z.object({ keys: z.array(z.string()), key_info: z.record(z.string(), namespaceInfoData) }),
  }),
  read: engineContract('core.sys.namespaces.read', { params: pathParams, data: namespaceInfoData }),
  create: engineContract('core.sys.namespaces.create', {
    params: pathParams,
    body: z.object({ custom_metadata: stringMapSchema.optional() }).prefault({}),
    data: namespaceInfoData,
  }),
  /** merge-patch of custom_metadata: a null value removes the key */
  patch: engineContract('core.sys.namespaces.patch', {
    params: pathParams,
    body: z.object({ custom_metadata: jsonObjectSchema.optional() }).prefault({}),
    data: namespaceInfoData,
  }),
  delete: engineContract('core.sys.namespaces.delete', { params: pathParams }),
  exists: existenceContract('core.sys.namespaces.exists'),
  /** sys/namespaces/api-lock/lock[/:subpath]: locks the request's namespace or a descendant */
  apiLock: engineContract('core.sys.namespaces.api-lock', {
    params: subpathParams,
    data: z.object({ unlock_key: z.string() }),
  }),
  /** sys/namespaces/api-lock/unlock[/:subpath]: the unlock key, or a root token */
  apiUnlock: engineContract('core.sys.namespaces.api-unlock', {
    params: subpathParams,
    body: z.object({ unlock_key: z.string().default('') }).prefault({}),
  }),
};

/** The API-locked namespaces (full paths) for the gateway, which answers 503 inside them. */
export const coreNamespaceLocks = defineContract(
  'core.namespaces.locks',
  z.object({}),
  z.object({ locked: z.array(z.string()) }),
);

/**
 * The one exempt route of a locked namespace besides the unauthenticated ones: its unlock.
 * The gateway knows it by its contract.
 */
export const NAMESPACE_UNLOCK_SUBJECT: string = namespaceContracts.apiUnlock.subject;

const op = (
  contract: OperationDef['contract'],
  summary: string,
  extra: Partial<OperationDef> = {},
): OperationDef => ({
  contract,
  summary,
  ...extra,
});
const c = namespaceContracts;

const lockDescription =
  'A locked namespace and its descendants answer 503 to every request but the exempt ones (unlock, health, seal status); the unlock key returned by lock, or a root token, unlocks it.';

export const namespaceRouteDefs: RouteDef[] = [
  ...['namespaces/api-lock/lock', 'namespaces/api-lock/lock/:subpath*'].map((pattern): RouteDef => ({
    pattern,
    synopsis: 'Lock the API of the request namespace or of a descendant.',
    description: lockDescription,
    invalidates: ['mounts'],
    operations: {
      update: op(c.apiLock, 'Lock a namespace'),
    },
  })),
  ...['namespaces/api-lock/unlock', 'namespaces/api-lock/unlock/:subpath*'].map((pattern): RouteDef => ({
    pattern,
    synopsis: 'Unlock the API of the request namespace or of a descendant.',
    description: lockDescription,
    invalidates: ['mounts'],
    operations: {
      update: op(c.apiUnlock, 'Unlock a namespace'),
    },
  })),
  {
    pattern: 'namespaces',
    synopsis: 'List the child namespaces of the request namespace.',
    operations: { list: op(c.list, 'List namespaces') },
  },
  {
    pattern: 'namespaces/:path*',
    replicated: true,
    synopsis: 'Create, read, patch or delete a namespace.',
    description:
      'The path is relative to the namespace of the request; nested paths need their parent. Deleting revokes the tokens and leases of the namespace and removes its mounts with their data; a namespace with children cannot be deleted.',
    existenceCheck: c.exists,
    invalidates: ['mounts', 'tokens'],
    operations: {
      read: op(c.read, 'Read a namespace'),
      create: op(c.create, 'Create a namespace'),
      update: op(c.create, 'Create a namespace'),
      patch: op(c.patch, 'Patch the custom metadata of a namespace', { mergePatch: true }),
      delete: op(c.delete, 'Delete a namespace'),
    },
  },
];
