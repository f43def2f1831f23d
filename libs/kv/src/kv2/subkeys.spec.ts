import { MAX_SUBKEYS_DEPTH, subkeys } from './subkeys';

describe('subkeys', () => {
  const secret = { foo: 'abc', bar: { baz: 'def', qux: { quux: 1 } }, empty: {}, list: [1, { a: 2 }] };

  it('replaces every leaf with null; empty maps and arrays are leaves', () => {
    expect(subkeys(secret, 0)).toEqual({
      foo: null,
      bar: { baz: null, qux: { quux: null } },
      empty: null,
      list: null,
    });
  });

  it('shows keys at the given depth as leaves', () => {
    expect(subkeys(secret, 1)).toEqual({ foo: null, bar: null, empty: null, list: null });
    expect(subkeys(secret, 2)).toEqual({ foo: null, bar: { baz: null, qux: null }, empty: null, list: null });
  });

  it('never walks deeper than the cap', () => {
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < MAX_SUBKEYS_DEPTH + 5; i++) deep = { n: deep };
    let node = subkeys(deep, 0) as Record<string, unknown> | null;
    let levels = 0;
    while (node && typeof node === 'object') {
      node = node['n'] as Record<string, unknown> | null;
      levels++;
    }
    expect(levels).toBe(MAX_SUBKEYS_DEPTH);
  });

  it('leaks no value', () => {
    expect(JSON.stringify(subkeys(secret, 0))).not.toMatch(/abc|def|1|2/);
  });
});
