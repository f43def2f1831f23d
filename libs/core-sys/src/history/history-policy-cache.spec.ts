import { HistoryPolicyCache } from './history-policy-cache';

const READ = 'path "secret/*" { capabilities = ["read"] }';

describe('HistoryPolicyCache', () => {
  it('keeps a parsed version by its WAL, undefined before it was parsed', () => {
    const cache = new HistoryPolicyCache();
    expect(cache.get(7)).toBeUndefined();
    const parsed = cache.parse('p', 7, READ);
    expect(cache.has(7)).toBe(true);
    expect(cache.get(7)).toBe(parsed);
    expect(cache.get(8)).toBeUndefined();
    expect(parsed?.acl?.allowOperation({ path: 'secret/x', operation: 'read' }).allowed).toBe(true);
  });

  it('parses a text once: another version or name with the same text shares the parse', () => {
    const cache = new HistoryPolicyCache();
    const first = cache.parse('p', 1, READ);
    expect(cache.parse('p', 2, READ)).toBe(first);
    expect(cache.parse('ns1/q', 3, READ)).toBe(first);
    expect(cache.parse('p', 4, `${READ}\n# edited`)).not.toBe(first);
  });

  it('keeps root apart: the same text under the name root compiles to the root ACL', () => {
    const cache = new HistoryPolicyCache();
    const plain = cache.parseText('p', '');
    const root = cache.parseText('Root', '');
    expect(root).not.toBe(plain);
    expect(root?.acl?.allowOperation({ path: 'anything', operation: 'delete' }).allowed).toBe(true);
    expect(plain?.acl?.allowOperation({ path: 'anything', operation: 'delete' }).allowed).toBe(false);
  });

  it('answers null for a version that does not parse, and remembers it', () => {
    const cache = new HistoryPolicyCache();
    expect(cache.parse('p', 1, 'path "x" { capabilities = ')).toBeNull();
    expect(cache.get(1)).toBeNull();
  });

  it('forgets the versions used least recently beyond its size', () => {
    const cache = new HistoryPolicyCache();
    for (let wal = 1; wal <= 10_000; wal++) cache.parse('p', wal, READ);
    expect(cache.get(1)).not.toBeUndefined(); // used now: the most recent
    cache.parse('p', 10_001, READ);
    expect(cache.has(1)).toBe(true);
    expect(cache.has(2)).toBe(false);
    expect(cache.has(10_001)).toBe(true);
  });
});
