import { DomainError } from '@coffer/contracts';
import {
  afterSubfolder,
  assertSecretPath,
  childEntry,
  folderUpperBound,
  isSecretPath,
  listFolder,
} from './paths';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof DomainError ? e.code : 'not-a-domain-error';
  }
};

describe('secret paths', () => {
  it('accepts nested, unicode and dotted-inside names', () => {
    for (const p of ['a', 'a/b/c', 'ключ/秘密/🔑', 'v1.2/x', 'a..b', '.hidden'])
      expect(isSecretPath(p)).toBe(true);
  });

  it('rejects an empty path, empty, "." and ".." segments and a trailing "/"', () => {
    expect(codeOf(() => assertSecretPath(''))).toBe('invalid_request');
    for (const p of ['a//b', 'a/./b', 'a/../b', '..', '../x', 'a/', '/a']) {
      expect(codeOf(() => assertSecretPath(p))).toBe('invalid_request');
    }
  });

  it('answers unsupported path (404) for a path ending in "."', () => {
    expect(codeOf(() => assertSecretPath('a/b.'))).toBe('unsupported_path');
    expect(codeOf(() => assertSecretPath('x.'))).toBe('unsupported_path');
  });
});

describe('folders', () => {
  it('normalises list paths to one trailing slash, the root to ""', () => {
    expect(listFolder('')).toBe('');
    expect(listFolder('/')).toBe('');
    expect(listFolder('a')).toBe('a/');
    expect(listFolder('a/b/')).toBe('a/b/');
    expect(codeOf(() => listFolder('a/../b'))).toBe('invalid_request');
  });

  it('names the child entry of a descendant path', () => {
    expect(childEntry('', 'a')).toBe('a');
    expect(childEntry('', 'a/b/c')).toBe('a/');
    expect(childEntry('a/', 'a/b/c')).toBe('b/');
    expect(childEntry('a/', 'a/b')).toBe('b');
  });

  it('skips a whole sub-folder in byte order', () => {
    const after = afterSubfolder('x/', 'a/');
    expect(after).toBe('x/a0');
    const inside = ['x/a/', 'x/a/b', 'x/a/\u{10FFFF}'];
    const outside = ['x/a0', 'x/a1', 'x/ab', 'x/b'];
    const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    for (const p of inside) expect(cmp(p, after)).toBeLessThan(0);
    for (const p of outside) expect(cmp(p, after)).toBeGreaterThanOrEqual(0);
    expect(folderUpperBound('')).toBeUndefined();
    expect(folderUpperBound('x/')).toBe('x0');
  });
});
