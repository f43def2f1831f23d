/**
 * How a policy path matches request paths, after Vault's policy.go / acl.go:
 * - exact: no wildcard;
 * - prefix glob: ends in `*` (only meaningful as the last character), prefix match;
 * - segment wildcard: a `+` segment matches exactly one path segment (any characters, even
 *   none); such a path may also end in `*`, which then globs its last segment.
 * Among different matching non-exact patterns only the highest-priority one applies.
 */
export type PatternKind = 'exact' | 'prefix' | 'segments';

export interface PatternInfo {
  kind: PatternKind;
  /** the path with a trailing glob `*` removed (as stored by Vault) */
  path: string;
  /** the path as it was written after normalisation (keeps the `*`) */
  full: string;
  isPrefix: boolean;
  /** byte offset (UTF-8, like Go) of the first `+` or glob `*` */
  firstWildcard: number;
  /** number of `+` segments */
  wildcards: number;
  /** byte length of `path` (UTF-8, like Go's len) */
  byteLength: number;
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Vault's detection: "+" alone, a "/+" anywhere, or a leading "+/". */
export const hasSegmentWildcards = (p: string): boolean =>
  p === '+' || p.includes('/+') || p.startsWith('+/');

export function patternInfo(full: string): PatternInfo {
  const segments = hasSegmentWildcards(full);
  const isPrefix = full.endsWith('*');
  if (segments) {
    const path = isPrefix ? full.slice(0, -1) : full;
    return {
      kind: 'segments',
      path,
      full,
      isPrefix,
      firstWildcard: utf8Length(full.slice(0, full.indexOf('+'))),
      wildcards: path.split('/').filter((s) => s === '+').length,
      byteLength: utf8Length(path),
    };
  }
  if (isPrefix) {
    const path = full.slice(0, -1);
    const len = utf8Length(path);
    return { kind: 'prefix', path, full, isPrefix, firstWildcard: len, wildcards: 0, byteLength: len };
  }
  const len = utf8Length(full);
  return {
    kind: 'exact',
    path: full,
    full,
    isPrefix: false,
    firstWildcard: len,
    wildcards: 0,
    byteLength: len,
  };
}

/**
 * Vault's priority among matching non-exact patterns. Negative when `a` has LOWER priority than
 * `b`, positive when higher, 0 when identical. `a` is lower priority if, in this order:
 * (1) its first `+` or `*` occurs earlier, (2) it ends in `*` and `b` doesn't, (3) it has more
 * `+` segments, (4) it is shorter, (5) it is lexicographically smaller (bytewise, like Go).
 */
export function comparePriority(a: PatternInfo, b: PatternInfo): number {
  if (a.firstWildcard !== b.firstWildcard) return a.firstWildcard < b.firstWildcard ? -1 : 1;
  if (a.isPrefix !== b.isPrefix) return a.isPrefix ? -1 : 1;
  if (a.wildcards !== b.wildcards) return a.wildcards > b.wildcards ? -1 : 1;
  if (a.byteLength !== b.byteLength) return a.byteLength < b.byteLength ? -1 : 1;
  if (a.path === b.path) return 0;
  return Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8'));
}

/**
 * Whether a segment-wildcard pattern matches a request path (split on "/"), Vault's
 * CheckAllowedFromNonExactPaths for one pattern.
 */
export function segmentsMatch(info: PatternInfo, pathParts: readonly string[]): boolean {
  const acl = info.path.split('/');
  if (pathParts.length < acl.length) return false;
  if (!info.isPrefix && acl.length !== pathParts.length) return false;
  return acl.every((part, i) => {
    const actual = pathParts[i] ?? '';
    if (part === '+' || part === actual) return true;
    return info.isPrefix && i === acl.length - 1 && actual.startsWith(part);
  });
}
