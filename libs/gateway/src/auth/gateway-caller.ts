import type { IncomingHttpHeaders } from 'node:http';
import type { Acl } from '@coffer/acl';
import type { CallerContext, ResolvedToken } from '@coffer/contracts';
import { context as otelContext, propagation } from '@opentelemetry/api';
import type { RequestKind } from '../request/request-kind';
import { operationsOf, type ResolvedRoute } from '../routing/route-resolver';
import type { AclEvaluator } from './acl-evaluator.service';

/** Whether a failed routing may be told (404/405/503) or must look like a denial (403). */
export function mayAccess(
  acl: Acl,
  kind: RequestKind,
  path: string,
  params: Record<string, unknown>,
  wrapTtl: number | undefined,
): boolean {
  if (kind === 'help') return !acl.capabilities(path).includes('deny');
  return operationsOf(kind).some(
    (operation) => acl.allowOperation({ path, operation, params, wrapTtl }).allowed,
  );
}

/**
 * The caller an engine sees (the encoded x-coffer-* context): what the token resolved to, never
 * the token itself. It is also what a performance secondary forwards to its primary.
 */
export function callerContextOf(
  acls: AclEvaluator,
  r: {
    requestId: string;
    path: string;
    routing: ResolvedRoute;
    token: ResolvedToken | undefined;
    clientAddress: string;
  },
): CallerContext {
  const { token } = r;
  const ctx: CallerContext = {
    requestId: r.requestId,
    path: r.path,
    namespace: r.routing.match.mount.namespace,
    clientAddress: r.clientAddress,
    policies: token ? acls.policyNames(token) : [],
    root: token ? acls.isRoot(token) : false,
    sudo: false,
  };
  if (token) {
    ctx.accessor = token.accessor;
    ctx.tokenRef = token.tokenRef;
    if (token.entityId) ctx.entityId = token.entityId;
    if (token.displayName) ctx.displayName = token.displayName;
    if (token.namespace) ctx.tokenNamespace = token.namespace;
    if (token.externalPolicies) ctx.externalPolicies = token.externalPolicies;
  }
  const carrier: Record<string, string> = {};
  propagation.inject(otelContext.active(), carrier);
  if (carrier['traceparent']) ctx.traceparent = carrier['traceparent'];
  return ctx;
}

/** The request headers a route declared it needs, for the engine. */
export function forwardedHeaders(
  routing: ResolvedRoute,
  headers: IncomingHttpHeaders,
): Record<string, string> {
  const names = routing.route.headers;
  if (!names || names.length === 0) return {};
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
