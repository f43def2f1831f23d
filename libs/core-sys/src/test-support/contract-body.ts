import { DomainError, formatRequestIssues, type Contract, type RequestOf } from '@coffer/contracts';

const MOUNT = { path: 'sys/', uuid: 'sys-mount-uuid', accessor: 'system_00000000', type: 'system' };

/**
 * A body as a handler of `contract` receives it: parsed by the contract's request schema, or the
 * DomainError the transport answers for it (same text), so pure specs see what callers see.
 */
export function parsedBody<C extends Contract>(
  contract: C,
  body: Record<string, unknown>,
): RequestOf<C> extends { body: infer B } ? B : never {
  const parsed = contract.request.safeParse({ operation: 'update', mount: MOUNT, path: '', body });
  if (!parsed.success) throw new DomainError('invalid_request', formatRequestIssues(parsed.error));
  return (parsed.data as { body: never }).body;
}
