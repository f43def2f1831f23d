import { trace, type Span } from '@opentelemetry/api';
import type { MountInfo } from '@coffer/contracts';

/** Span attributes the gateway adds to the HTTP server span (never values of the request). */
export const ATTR_REQUEST_ID = 'coffer.request_id';
export const ATTR_OPERATION = 'coffer.operation';
export const ATTR_MOUNT_TYPE = 'coffer.mount.type';
export const ATTR_MOUNT_PATH = 'coffer.mount.path';
const ATTR_HTTP_ROUTE = 'http.route';

/**
 * The HTTP server span of the request being handled (the http instrumentation's, active while
 * the pipeline runs), or undefined when it is not recorded.
 */
export function requestSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() === true ? span : undefined;
}

/**
 * The route template of a routed request: the mount (with its namespace) and the route's
 * pattern, e.g. "secret/data/:path*"; the metrics' `route` label and the span's `http.route`.
 */
export function routeTemplate(mount: Pick<MountInfo, 'namespace' | 'path'>, pattern: string): string {
  return `${mount.namespace}${mount.path}${pattern}`;
}

/** Names the HTTP span by its route ("POST secret/data/:path*"), as the HTTP conventions ask. */
export function nameRequestSpan(
  span: Span | undefined,
  method: string,
  route: string,
  mount: Pick<MountInfo, 'type' | 'path'>,
): void {
  if (span === undefined) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.setAttribute(ATTR_MOUNT_TYPE, mount.type);
  span.setAttribute(ATTR_MOUNT_PATH, mount.path);
}
