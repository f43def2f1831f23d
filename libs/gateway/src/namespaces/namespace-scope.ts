import { DomainError, permissionDenied, type ResolvedToken } from '@coffer/contracts';
import type { Routing } from '../routing/route-resolver';

/**
 * Namespaces in the gateway, pure. A request's namespace is the one of the mount it reaches
 * (the header and the path prefix are already one path). A token belongs to a namespace and
 * acts there and below, never above or beside; its policies are those of its namespace, and
 * their paths are relative to it, so a parent's policy can grant paths inside a child
 * ("ns1/secret/data/x" seen from the root).
 */

/** The namespace a token belongs to ("" = root). */
export function tokenNamespace(token: Pick<ResolvedToken, 'namespace'> | undefined): string {
  return token?.namespace ?? '';
}

/**
 * The token may be used for a request in `requestNamespace` (the mount's), or, when routing
 * failed, for `fullPath`. Throws permission denied otherwise.
 */
export function assertTokenReaches(
  tokenNs: string,
  requestNamespace: string | undefined,
  fullPath: string,
): void {
  if (tokenNs === '') return;
  const target = requestNamespace ?? fullPath;
  if (!target.startsWith(tokenNs)) throw permissionDenied();
}

/** The ACL path of a request, relative to the token's namespace (which it is known to be under). */
export function aclPathFor(tokenNs: string, aclPath: string): string {
  return aclPath.startsWith(tokenNs) ? aclPath.slice(tokenNs.length) : aclPath;
}

/**
 * The stored names of a token's policies: "<namespace><name>". A name holding a "/" can never
 * be a policy of the namespace (names are one segment), so it is dropped rather than allowed to
 * reach another namespace's policy.
 */
export function qualifiedPolicyNames(tokenNs: string, names: readonly string[]): string[] {
  return names.filter((n) => !n.includes('/')).map((n) => tokenNs + n);
}

/** Policy names are lower-cased, their namespace prefix is not (namespace paths keep their case). */
export function normaliseQualifiedName(name: string): string {
  const trimmed = name.trim();
  const cut = trimmed.lastIndexOf('/');
  return cut < 0 ? trimmed.toLowerCase() : trimmed.slice(0, cut + 1) + trimmed.slice(cut + 1).toLowerCase();
}

/** The unqualified name ("ns1/default" -> "default"). */
export function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** "ns1/" or "" from a configured path ("admin", "/admin/", ""). */
export function normaliseNamespacePath(raw: string | undefined): string {
  const segments = (raw ?? '').split('/').filter((s) => s !== '');
  return segments.length === 0 ? '' : `${segments.join('/')}/`;
}

/**
 * Restricted routes (rekey, seal, generate-root, plugin catalog, audit devices, RGP/EGP, ...)
 * exist only in the root and the administrative namespace; elsewhere the path is unsupported,
 * answered like any failed routing (after the caller's access is known).
 */
export function restrictRouting(routing: Routing, administrativeNamespace: string): Routing {
  if (routing.kind !== 'route' || routing.route.restricted !== true) return routing;
  const namespace = routing.match.mount.namespace;
  if (namespace === '' || namespace === administrativeNamespace) return routing;
  return { kind: 'failed', error: new DomainError('unsupported_path', 'unsupported path') };
}

/**
 * The ACL path of an authenticated request, relative to its token's namespace; refuses a token
 * used outside its namespace (above it or beside it). Unauthenticated requests keep the path.
 */
export function scopedAclPath(
  token: Pick<ResolvedToken, 'namespace'> | undefined,
  routing: Routing,
  fullPath: string,
  aclPath: string,
): string {
  if (!token) return aclPath;
  const tokenNs = tokenNamespace(token);
  assertTokenReaches(
    tokenNs,
    routing.kind === 'failed' ? undefined : routing.match.mount.namespace,
    fullPath,
  );
  return aclPathFor(tokenNs, aclPath);
}
