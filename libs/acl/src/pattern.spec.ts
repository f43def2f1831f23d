import fc from 'fast-check';
import { CAP } from './capabilities';
import { comparePriority, patternInfo } from './pattern';
import { RuleIndex } from './rule-index';
import type { PathPermissions } from './policy.types';

/** A direct reading of Vault's documented rules: is p1 LOWER priority than p2? */
function directlyLower(p1: string, p2: string): boolean {
  const first = (p: string) => Math.min(...[p.indexOf('+'), p.indexOf('*')].filter((i) => i >= 0));
  const star = (p: string) => p.endsWith('*');
  const plus = (p: string) => p.split('/').filter((s) => s === '+').length;
  // (1) its first + or * occurs earlier
  if (first(p1) !== first(p2)) return first(p1) < first(p2);
  // (2) it ends in * and P2 doesn't
  if (star(p1) !== star(p2)) return star(p1);
  // (3) it has more + segments
  if (plus(p1) !== plus(p2)) return plus(p1) > plus(p2);
  // (4) it is shorter
  if (p1.length !== p2.length) return p1.length < p2.length;
  // (5) it is lexicographically smaller
  return p1 < p2;
}

const segment = fc.constantFrom('a', 'b', 'ab', 'ba', 'x', '', '+');
/** Non-exact patterns: at least one `+` segment or a trailing glob, never "+*". */
const wildcardPattern = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([segs, glob]) => segs.join('/') + (glob ? '*' : ''))
  .filter((p) => !p.includes('+*') && (p.endsWith('*') || p.split('/').includes('+')));

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('comparePriority', () => {
  it('agrees with a direct reading of the five rules', () => {
    fc.assert(
      fc.property(wildcardPattern, wildcardPattern, (a, b) => {
        const cmp = comparePriority(patternInfo(a), patternInfo(b));
        expect(cmp < 0).toBe(directlyLower(a, b));
        expect(cmp > 0).toBe(directlyLower(b, a));
        expect(cmp === 0).toBe(a === b);
      }),
      { numRuns: 3000 },
    );
  });

  it('is a total order (antisymmetric and transitive)', () => {
    fc.assert(
      fc.property(wildcardPattern, wildcardPattern, wildcardPattern, (a, b, c) => {
        const [ia, ib, ic] = [a, b, c].map(patternInfo) as [
          ReturnType<typeof patternInfo>,
          ReturnType<typeof patternInfo>,
          ReturnType<typeof patternInfo>,
        ];
        expect(sign(comparePriority(ia, ib)) + sign(comparePriority(ib, ia))).toBe(0);
        if (comparePriority(ia, ib) < 0 && comparePriority(ib, ic) < 0)
          expect(comparePriority(ia, ic)).toBeLessThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    // (1) first wildcard position
    ['foo/+', 'foo/a*'],
    ['foo/+/bar/baz', 'foo/bar/+/baz'],
    // (2) glob vs no glob at the same position
    ['foo/+/ba*', 'foo/+/bar'],
    ['foo/*', 'foo/+'],
    // (3) more + segments
    ['foo/+/+/baz', 'foo/+/bar/baz'],
    // (4) shorter
    ['foo/+/bar/b*', 'foo/+/bar/ba*'],
    // (5) lexicographically smaller
    ['foo/+/aa', 'foo/+/ab'],
  ])('%s is lower priority than %s', (low, high) => {
    expect(comparePriority(patternInfo(low), patternInfo(high))).toBeLessThan(0);
    expect(comparePriority(patternInfo(high), patternInfo(low))).toBeGreaterThan(0);
  });

  it('measures positions and lengths in UTF-8 bytes like Go', () => {
    // "é" is 2 bytes: the + of the first pattern sits at byte 3, the * of the second at byte 2.
    expect(comparePriority(patternInfo('é/+'), patternInfo('ab*'))).toBeGreaterThan(0);
  });
});

describe('patternInfo', () => {
  it.each([
    ['secret/foo', { kind: 'exact', path: 'secret/foo', isPrefix: false }],
    ['secret/*', { kind: 'prefix', path: 'secret/', isPrefix: true, firstWildcard: 7 }],
    ['*', { kind: 'prefix', path: '', isPrefix: true, firstWildcard: 0 }],
    ['secret/+/x', { kind: 'segments', path: 'secret/+/x', isPrefix: false, firstWildcard: 7, wildcards: 1 }],
    ['+/+/x*', { kind: 'segments', path: '+/+/x', isPrefix: true, firstWildcard: 0, wildcards: 2 }],
    ['+', { kind: 'segments', path: '+', wildcards: 1 }],
    // a "+" inside a segment is a literal character (Vault still files it with the wildcards)
    ['a+b/c', { kind: 'exact', path: 'a+b/c' }],
    ['a/+b', { kind: 'segments', wildcards: 0, firstWildcard: 2 }],
  ])('%s', (pattern, expected) => {
    expect(patternInfo(pattern)).toMatchObject(expected);
  });
});

const perms = (bitmap: number): PathPermissions => ({
  bitmap,
  minWrappingTtl: 0,
  maxWrappingTtl: 0,
  requiredParameters: [],
  subscribeEventTypes: [],
});

/** Reference matcher: a regular expression per pattern. */
function referenceMatches(pattern: string, path: string): boolean {
  const info = patternInfo(pattern);
  if (info.kind === 'prefix') return path.startsWith(info.path);
  const source = info.path
    .split('/')
    .map((s) => (s === '+' ? '[^/]*' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}${info.isPrefix ? '.*' : ''}$`, 's').test(path);
}

describe('RuleIndex.nonExact', () => {
  it('returns the highest-priority matching pattern, like scanning every rule', () => {
    const path = fc
      .array(fc.constantFrom('a', 'b', 'ab', 'x', ''), { minLength: 1, maxLength: 5 })
      .map((s) => s.join('/'));
    fc.assert(
      fc.property(
        fc.uniqueArray(wildcardPattern, { maxLength: 12 }),
        fc.array(path, { maxLength: 10 }),
        (patterns, paths) => {
          const index = new RuleIndex();
          patterns.forEach((p) => index.add(patternInfo(p), perms(CAP.read)));
          for (const p of paths) {
            const matching = patterns.filter((pattern) => referenceMatches(pattern, p));
            const expected = matching.reduce<string | undefined>(
              (best, cur) => (best === undefined || directlyLower(best, cur) ? cur : best),
              undefined,
            );
            expect(index.nonExact(p)?.info.full).toBe(expected);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
