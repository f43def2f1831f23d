import { invalidRequest } from '@coffer/contracts';

/**
 * Path handling before the mount lookup, the ACL and the route match, so that a path can never
 * name one thing to the ACL and another to the engine:
 *  - percent-encoding is decoded exactly once (like Go's URL.Path); nothing downstream decodes again;
 *  - a ".." segment (raw or %2e-encoded) is refused with 400: it could only ever be an attempt to
 *    leave a mount, and normalising it would let "secret/../sys/x" pass a "secret/*" policy check
 *    meant for something else;
 *  - "." segments and empty segments ("//") are dropped;
 *  - a trailing slash is kept: it marks a folder (kv lists, "metadata/").
 */

export function splitTarget(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** Decodes and normalises a path; returns it without a leading slash. Throws invalid_request. */
export function normalisePath(raw: string): string {
  let decoded: string;
  try {
    decoded = raw.includes('%') ? decodeURIComponent(raw) : raw;
  } catch {
    throw invalidRequest('invalid URL escape in the request path');
  }
  if (!needsNormalising(decoded)) return decoded;
  if (decoded.includes('\0')) throw invalidRequest('invalid character in the request path');
  const segments = decoded.split('/');
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === '..') throw invalidRequest('invalid request path: ".." segments are not allowed');
    if (segment === '' || segment === '.') continue;
    kept.push(segment);
  }
  const trailing = kept.length > 0 && (decoded.endsWith('/') || decoded.endsWith('/.'));
  return kept.join('/') + (trailing ? '/' : '');
}

/** The fast path: most paths have no leading slash, no "//", no dot segments and no NUL. */
function needsNormalising(p: string): boolean {
  if (p.startsWith('/') || p.includes('//') || p.includes('\0')) return true;
  if (!p.includes('.')) return false;
  return (
    p === '.' ||
    p === '..' ||
    p.startsWith('./') ||
    p.startsWith('../') ||
    p.includes('/./') ||
    p.includes('/../') ||
    p.endsWith('/.') ||
    p.endsWith('/..')
  );
}

/**
 * The namespace header: "ns1", "ns1/", "/ns1/ns2" -> "ns1/", "ns1/ns2/"; "" or "/" -> "" (root).
 * Same segment rules as paths.
 */
export function normaliseNamespace(raw: string | undefined): string {
  if (raw === undefined) return '';
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed === '/') return '';
  if (trimmed.includes('\0')) throw invalidRequest('invalid namespace');
  const segments = trimmed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw invalidRequest('invalid namespace: ".." segments are not allowed');
  return segments.length === 0 ? '' : `${segments.join('/')}/`;
}
