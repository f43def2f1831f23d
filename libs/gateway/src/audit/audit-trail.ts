import { DomainError, type WrapInfo } from '@coffer/contracts';
import type { EngineResult } from '../response/envelope';
import type { RequestKind } from '../request/request-kind';
import type { Routing } from '../routing/route-resolver';
import type { IncomingHttpHeaders } from 'node:http';
import { activeTraceId } from '@coffer/transport';
import type { AuditedOutcome, AuditedRequest } from './audit-entry';

/** sys paths Vault serves with raw handlers and never audits (vault-behaviour §1.1, §1.7). */
const UNAUDITED_SYS_PATTERNS = new Set(['init', 'seal-status', 'seal', 'unseal', 'health', 'leader']);

/** Whether a request is audited: not while sealed, not help, not the raw seal/health routes. */
export function isAudited(routing: Routing, kind: RequestKind, sealed: boolean): boolean {
  if (sealed || kind === 'help') return false;
  if (routing.kind !== 'route') return true;
  return !(routing.table.engine === 'system' && UNAUDITED_SYS_PATTERNS.has(routing.route.pattern));
}

/** The operation an entry names before the ACL decided create vs update. */
export function provisionalOperation(kind: RequestKind): string {
  return kind === 'write' ? 'update' : kind;
}

/**
 * An engine's answer as its response entry sees it. A wrapped answer is audited as Vault does: its
 * wrap_info only, the wrapped data and auth never (they live in the wrapping token's cubbyhole).
 */
export function auditedResult(result: EngineResult, wrapInfo?: WrapInfo): AuditedOutcome {
  if (wrapInfo) return { response: { wrap_info: wrapInfo } };
  if (result.kind === 'raw') {
    const body: unknown = result.body;
    return { response: { data: body !== null && typeof body === 'object' ? body : undefined } };
  }
  return { response: { data: result.data, auth: result.auth ?? null, warnings: result.warnings } };
}

/** The error text of an entry: the domain message (Vault logs its error string), else "internal error". */
export function auditedError(error: unknown): string {
  return error instanceof DomainError && error.code !== 'internal' ? error.message : 'internal error';
}

/** What the request entry names before the token is resolved (the pipeline fills in the rest). */
export function auditedRequestOf(
  routing: Routing,
  r: {
    requestId: string;
    path: string;
    kind: RequestKind;
    token: string | undefined;
    wrapTtl: number | undefined;
    req: { clientAddress: string; headers: IncomingHttpHeaders };
  },
): AuditedRequest {
  const mount = routing.kind === 'failed' ? undefined : routing.match.mount;
  const entry = routing.kind === 'failed' ? undefined : routing.match.entry;
  return {
    id: r.requestId,
    time: new Date(),
    operation: provisionalOperation(r.kind),
    path: r.path,
    namespace: mount?.namespace ?? '',
    ...(mount
      ? {
          mount: {
            type: mount.type,
            accessor: mount.accessor,
            path: mount.path,
            nonHmacRequestKeys: entry?.audit_non_hmac_request_keys ?? [],
            nonHmacResponseKeys: entry?.audit_non_hmac_response_keys ?? [],
          },
        }
      : {}),
    ...(r.token !== undefined ? { clientToken: r.token } : {}),
    policies: [],
    remoteAddress: r.req.clientAddress,
    headers: r.req.headers,
    traceId: activeTraceId(),
    ...(r.wrapTtl !== undefined ? { wrapTtl: r.wrapTtl } : {}),
  };
}
