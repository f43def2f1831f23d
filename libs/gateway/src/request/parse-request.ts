import { notFound } from '@coffer/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { checkMergePatchContentType, parseJsonBody } from './request-body';
import { readNamespaceHeader, readToken, readWrapTtl } from './request-headers';
import { classifyRequest, type RequestKind } from './request-kind';
import { normaliseNamespace, normalisePath, splitTarget } from './request-path';
import { parseQuery, type ParsedQuery } from './request-query';

export interface RawRequest {
  method: string;
  /** raw request target, "/v1/..." with the query string */
  url: string;
  headers: IncomingHttpHeaders;
  /** raw body; undefined when there is none */
  body: Buffer | undefined;
}

/** Everything the pipeline needs from the HTTP request, validated, before any lookup. */
export interface ParsedRequest {
  kind: RequestKind;
  /** normalised path after /v1/, as the caller named it (without the namespace header) */
  path: string;
  /** namespace header + path: what mounts are matched against */
  fullPath: string;
  /** the path the ACL is evaluated on: LIST targets a folder, so it ends with "/" */
  aclPath: string;
  query: ParsedQuery;
  /** JSON body of writes and patches, {} otherwise */
  body: Record<string, unknown>;
  /** what ACL parameter constraints apply to: the body of writes, the query otherwise */
  aclParams: Record<string, unknown>;
  token: string | undefined;
  wrapTtl: number | undefined;
}

const V1 = '/v1/';

/** Parses and validates the HTTP side of a request (400/404/405/415 as DomainError or GatewayError). */
export function parseRequest(req: RawRequest): ParsedRequest {
  const target = splitTarget(req.url);
  if (!target.path.startsWith(V1)) throw notFound();
  const path = normalisePath(target.path.slice(V1.length));
  const fullPath = normaliseNamespace(readNamespaceHeader(req.headers)) + path;
  const query = parseQuery(target.query);
  const kind = classifyRequest(req.method, query);
  if (kind === 'patch') checkMergePatchContentType(req.headers['content-type']);
  const writes = kind === 'write' || kind === 'patch';
  const body = writes ? parseJsonBody(req.body) : {};
  return {
    kind,
    path,
    fullPath,
    aclPath: kind === 'list' && fullPath !== '' && !fullPath.endsWith('/') ? `${fullPath}/` : fullPath,
    query,
    body,
    aclParams: writes ? body : query.values,
    token: readToken(req.headers),
    wrapTtl: readWrapTtl(req.headers),
  };
}
