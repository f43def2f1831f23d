import { DomainError, type Operation } from '@coffer/contracts';

/** What every kv request carries: the mount-relative path and the route's captures. */
export interface PathedRequest {
  path: string;
  params: { path?: string };
}

/** The secret path of a request: the route's `path` capture, else the whole mount-relative path. */
export function pathParam(req: PathedRequest): string {
  return req.params['path'] ?? req.path;
}

const KV2_ROOTS = new Set(['metadata', 'data', 'delete', 'undelete', 'destroy', 'subkeys']);

const CLI_COMMAND: Record<Operation, string> = {
  read: 'get',
  create: 'put',
  update: 'put',
  patch: 'patch',
  delete: 'delete',
  list: 'list',
};

/**
 * Vault's answer to a kv v2 path outside its API ("secret/foo" instead of "secret/data/foo"):
 * 404 whose only content is a warning naming the CLI command to use.
 */
export function kv2InvalidPath(operation: Operation, mountRelativePath: string): DomainError {
  const bare = mountRelativePath.replace(/\/+$/, '');
  const warning = KV2_ROOTS.has(bare)
    ? 'Non-listing operations on the root of a K/V v2 mount are not supported.'
    : `Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. If using the Vault CLI, use 'vault kv ${CLI_COMMAND[operation]}' for this operation.`;
  return new DomainError('not_found', '', undefined, [warning]);
}
