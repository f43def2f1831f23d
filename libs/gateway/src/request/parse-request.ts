import { notFound } from '@coffer/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { checkMergePatchContentType, isFormEncoded, parseFormBody, parseJsonBody } from './request-body';
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

/** Everything the pipeline needs from the request line and headers, validated, before any lookup. */
export interface RequestHead {
  kind: RequestKind;
  /** normalised path after /v1/, as the caller named it (without the namespace header) */
  path: string;
  /** namespace header + path: what mounts are matched against */
  fullPath: string;
  /** the path the ACL is evaluated on: LIST targets a folder, so it ends with "/" */
  aclPath: string;
  query: ParsedQuery;
  /** writes and patches carry a JSON body; other requests' bodies are never read */
  hasJsonBody: boolean;
  /** the body is declared `application/x-www-form-urlencoded` (read as such only on routes allowing it) */
  formEncoded: boolean;
  token: string | undefined;
  wrapTtl: number | undefined;
}

export interface RequestBody {
  /** JSON body of writes and patches, {} otherwise */
  body: Record<string, unknown>;
  /** what ACL parameter constraints apply to: the body of writes, the query otherwise */
  aclParams: Record<string, unknown>;
}

export type ParsedRequest = RequestHead & RequestBody;

const V1 = '/v1/';

/** Parses and validates the HTTP side of a request (400/404/405/415 as DomainError or GatewayError). */
export function parseRequest(req: RawRequest): ParsedRequest {
  const head = parseRequestHead(req);
  return { ...head, ...requestBody(head, req.body) };
}

/** The body as the pipeline sees it, once the caller is known (bodies are read after the token check). */
export function requestBody(head: RequestHead, raw: Buffer | undefined, formAllowed = false): RequestBody {
  if (!head.hasJsonBody) return { body: {}, aclParams: head.query.values };
  const body = formAllowed && head.formEncoded ? parseFormBody(raw) : parseJsonBody(raw);
  return { body, aclParams: body };
}

/** The request line and headers; the body is left unread. */
export function parseRequestHead(req: Omit<RawRequest, 'body'>): RequestHead {
  const target = splitTarget(req.url);
  if (!target.path.startsWith(V1)) throw notFound();
  const path = normalisePath(target.path.slice(V1.length));
  const fullPath = normaliseNamespace(readNamespaceHeader(req.headers)) + path;
  const query = parseQuery(target.query);
  const kind = classifyRequest(req.method, query);
  if (kind === 'patch') checkMergePatchContentType(req.headers['content-type']);
  return {
    kind,
    path,
    fullPath,
    aclPath: kind === 'list' && fullPath !== '' && !fullPath.endsWith('/') ? `${fullPath}/` : fullPath,
    query,
    hasJsonBody: kind === 'write' || kind === 'patch',
    formEncoded: isFormEncoded(req.headers['content-type']),
    token: readToken(req.headers),
    wrapTtl: readWrapTtl(req.headers),
  };
}
