import { approleContracts as c, type Contract, type MountInfo } from '@coffer/contracts';
import type { DevCoreSysHarness } from './dev-harness';

export type ApproleOp = 'create' | 'update' | 'read' | 'delete' | 'list';

/** Calls to an AppRole mount's routes through the harness, as the AppRole int specs make them. */
export function approleCalls(harness: () => DevCoreSysHarness, mount: () => MountInfo) {
  const req = (
    path: string,
    role: string | undefined,
    body: Record<string, unknown> = {},
    operation: ApproleOp = 'update',
  ) => {
    const params: Record<string, string> = role === undefined ? {} : { role_name: role };
    return { mount: mount(), operation, path, params, body };
  };
  const call = <C extends Contract>(
    contract: C,
    path: string,
    role?: string,
    body?: Record<string, unknown>,
    op?: ApproleOp,
  ) => harness().call(contract, req(path, role, body, op));
  const fail = (
    contract: Contract,
    path: string,
    role?: string,
    body?: Record<string, unknown>,
    op?: ApproleOp,
  ) => harness().fail(contract, req(path, role, body, op));
  const writeRole = (name: string, body: Record<string, unknown> = {}, op: ApproleOp = 'create') =>
    call(c.roleWrite, `role/${name}`, name, body, op);
  const roleId = async (name: string) =>
    (await call(c.roleIdRead, `role/${name}/role-id`, name, {}, 'read')).data?.role_id ?? '';
  return { req, call, fail, writeRole, roleId };
}
