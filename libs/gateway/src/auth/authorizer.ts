import type { Acl } from '@coffer/acl';
import { DomainError, permissionDenied, type Operation, type RouteDef } from '@coffer/contracts';
import type { RequestKind } from '../request/request-kind';

export interface AuthorizeInput {
  /** undefined: the route is not under the ACL (unauthenticated or noAcl) */
  acl: Acl | undefined;
  route: RouteDef;
  kind: Exclude<RequestKind, 'help'>;
  /** the path the ACL is evaluated on (full path; LIST with a trailing slash) */
  aclPath: string;
  /** parameter constraints apply to these (JSON body of writes, query otherwise) */
  params: Record<string, unknown>;
  wrapTtl: number | undefined;
  /** asks the route's existence-check contract whether the write target exists */
  exists: () => Promise<boolean>;
  /**
   * the exact operation matters even where the ACL and the handler would not tell create from
   * update (an audit device logs it: Vault runs the existence check on every such write)
   */
  exactOperation?: boolean;
}

export function needsSudo(route: RouteDef, operation: Operation): boolean {
  const sudo = route.sudo;
  return sudo === true || (typeof sudo === 'object' && sudo[operation] === true);
}

export interface Authorization {
  operation: Operation;
  /** the ACL grants sudo on the path (undefined without an ACL) */
  sudo: boolean | undefined;
}

/**
 * Decides the operation (POST/PUT -> create or update) and checks it against the ACL, sudo
 * included. Throws permission_denied or unsupported_operation.
 */
export async function authorize(input: AuthorizeInput): Promise<Authorization> {
  const operation = input.kind === 'write' ? await resolveWrite(input) : input.kind;
  const { acl } = input;
  if (!acl) return { operation, sudo: undefined };
  const result = acl.allowOperation({
    path: input.aclPath,
    operation,
    params: input.params,
    wrapTtl: input.wrapTtl,
  });
  if (!result.allowed) throw permissionDenied();
  if (needsSudo(input.route, operation) && !result.sudo) throw permissionDenied();
  return { operation, sudo: result.sudo };
}

/**
 * Vault runs the existence check on every write to a path that has one; here it is only asked
 * when the answer matters: when the ACL grants exactly one of create and update, or when the
 * route handles create and update differently. Without an existence check a write is an update.
 */
async function resolveWrite(input: AuthorizeInput): Promise<'create' | 'update'> {
  const { route, acl } = input;
  const ops = route.operations;
  if (!route.existenceCheck) return ops.update ? 'update' : 'create';
  const grants = (operation: 'create' | 'update'): boolean =>
    !acl ||
    acl.allowOperation({ path: input.aclPath, operation, params: input.params, wrapTtl: input.wrapTtl })
      .allowed;
  const create = grants('create');
  const update = grants('update');
  if (!create && !update) throw permissionDenied();
  const sameHandler =
    !ops.create || !ops.update || ops.create.contract.subject === ops.update.contract.subject;
  const exact = input.exactOperation === true && ops.create !== undefined && ops.update !== undefined;
  if (create && update && sameHandler && !exact) return ops.update ? 'update' : 'create';
  const operation = (await input.exists()) ? 'update' : 'create';
  if (!ops[operation]) throw new DomainError('unsupported_operation', 'unsupported operation');
  return operation;
}
