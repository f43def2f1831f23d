import {
  DomainError,
  matchRoute,
  type MountInfo,
  type Operation,
  type RouteDef,
  type RouteMatch,
  type RouteTable,
} from '@coffer/contracts';
import { noReplicaError } from '@coffer/transport';
import { noHandlerError } from '../errors/error-table';
import type { RequestKind } from '../request/request-kind';
import type { MountIndex, MountMatch } from './mount-index';

export interface ResolvedRoute {
  kind: 'route';
  match: MountMatch;
  table: RouteTable;
  route: RouteDef;
  params: Record<string, string>;
  /** the mount-relative path the route matched (EngineRequest.path) */
  path: string;
}

export interface HelpTarget {
  kind: 'help';
  match: MountMatch;
  table: RouteTable;
}

/**
 * Routing failed; the error is answered only after the caller proved access (a token, and the
 * ACL allowing the operation on the path), so that unauthenticated callers learn nothing about
 * mounts and routes, like Vault, which checks the token before routing.
 */
export interface FailedRoute {
  kind: 'failed';
  error: DomainError;
  /** the matched route when it exists but lacks the operation (405) */
  route?: RouteDef;
}

export type Routing = ResolvedRoute | HelpTarget | FailedRoute;

const unsupportedPath = (): DomainError => new DomainError('unsupported_path', 'unsupported path');
const unsupportedOperation = (): DomainError =>
  new DomainError('unsupported_operation', 'unsupported operation');

export function supportsKind(route: RouteDef, kind: RequestKind): boolean {
  const ops = route.operations;
  switch (kind) {
    case 'write':
      return ops.create !== undefined || ops.update !== undefined;
    case 'help':
      return true;
    case 'read':
    case 'list':
    case 'patch':
    case 'delete':
      return ops[kind] !== undefined;
  }
}

/**
 * LIST targets a folder: Vault appends "/" (kv lists "metadata/a/" with path "a/"), but routes
 * like "policies/acl" are written without it, so both spellings are tried, slash first.
 */
function candidates(rel: string, kind: RequestKind): string[] {
  if (kind !== 'list' || rel === '') return [rel];
  return rel.endsWith('/') ? [rel, rel.slice(0, -1)] : [`${rel}/`, rel];
}

/**
 * A path parameter must not end in "." (spec: 404 unsupported path). A LIST names a folder, so
 * the slash it carries ("foo./") is not part of the name.
 */
export function hasDotEndingParam(params: Record<string, string>): boolean {
  for (const value of Object.values(params)) if (value.replace(/\/+$/, '').endsWith('.')) return true;
  return false;
}

/** Which engine serves a mount: its route table, and the service to name when there is none. */
export interface MountServing {
  tableFor: (mount: MountInfo) => RouteTable | undefined;
  serviceFor: (mountType: string) => string | undefined;
}

/**
 * Mount (longest prefix) -> route table -> route, for one request.
 * `requestPath` is the path as the caller named it (for the "no handler" text).
 */
export function resolveRoute(
  index: MountIndex,
  fullPath: string,
  requestPath: string,
  kind: RequestKind,
  serving: MountServing,
): Routing {
  const match = index.find(fullPath);
  if (!match) return { kind: 'failed', error: noHandlerError(requestPath) };
  const table = serving.tableFor(match.mount);
  if (!table) {
    const { type } = match.mount;
    return { kind: 'failed', error: noReplicaError(serving.serviceFor(type) ?? type) };
  }
  if (kind === 'help') return { kind: 'help', match, table };

  let chosen: { m: RouteMatch; path: string } | undefined;
  let fallback: RouteMatch | undefined;
  for (const path of candidates(match.rel, kind)) {
    const m = matchRoute(table, path);
    if (!m) continue;
    if (supportsKind(m.route, kind)) {
      chosen = { m, path };
      break;
    }
    fallback ??= m;
  }
  if (!chosen) {
    if (!fallback) return { kind: 'failed', error: unsupportedPath() };
    if (hasDotEndingParam(fallback.params)) return { kind: 'failed', error: unsupportedPath() };
    return { kind: 'failed', error: unsupportedOperation(), route: fallback.route };
  }
  if (hasDotEndingParam(chosen.m.params)) return { kind: 'failed', error: unsupportedPath() };
  return { kind: 'route', match, table, route: chosen.m.route, params: chosen.m.params, path: chosen.path };
}

/** The ACL operations a request kind could need, for answering failed routing (403 vs 404/405). */
export function operationsOf(kind: RequestKind): Operation[] {
  switch (kind) {
    case 'write':
      return ['create', 'update'];
    case 'help':
      return [];
    case 'read':
    case 'list':
    case 'patch':
    case 'delete':
      return [kind];
  }
}
