import { DomainError } from '@coffer/contracts';
import { normaliseNamespace, normalisePath, splitTarget } from './request-path';

const rejected = (raw: string): DomainError => {
  try {
    normalisePath(raw);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error(`${raw} was accepted`);
};

describe('splitTarget', () => {
  it('splits at the first question mark', () => {
    expect(splitTarget('/v1/a?b=1?c')).toEqual({ path: '/v1/a', query: 'b=1?c' });
    expect(splitTarget('/v1/a')).toEqual({ path: '/v1/a', query: '' });
  });
});

describe('normalisePath', () => {
  it.each([
    ['secret/data/foo', 'secret/data/foo'],
    ['secret/data/foo/', 'secret/data/foo/'],
    ['secret//data///foo', 'secret/data/foo'],
    ['/secret/foo', 'secret/foo'],
    ['secret/./foo', 'secret/foo'],
    ['./secret/foo/.', 'secret/foo/'],
    ['secret/foo/./', 'secret/foo/'],
    ['secret/%2e/foo', 'secret/foo'],
    ['secret/%2E%2F/foo', 'secret/foo'],
    ['secret/a%2Fb', 'secret/a/b'],
    ['secret/a%20b', 'secret/a b'],
    ['secret/...', 'secret/...'],
    ['secret/a..b/.c', 'secret/a..b/.c'],
    ['secret/%252e%252e/x', 'secret/%2e%2e/x'],
    ['', ''],
    ['/', ''],
  ])('%j -> %j', (raw, expected) => {
    expect(normalisePath(raw)).toBe(expected);
  });

  it.each([
    'secret/../sys/seal',
    '../sys',
    'secret/..',
    'secret/%2e%2e/sys',
    'secret/%2E%2e/x',
    'a/.%2e/b',
    'secret/%2e%2e%2fsys',
    '..',
  ])('refuses %j', (raw) => {
    const error = rejected(raw);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('invalid request path: ".." segments are not allowed');
  });

  it('refuses invalid escapes and NUL', () => {
    expect(rejected('secret/%zz').message).toBe('invalid URL escape in the request path');
    expect(rejected('secret/%00x').code).toBe('invalid_request');
  });

  it('decodes exactly once', () => {
    expect(normalisePath('a%2525')).toBe('a%25');
  });
});

describe('normaliseNamespace', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['ns1', 'ns1/'],
    ['ns1/', 'ns1/'],
    ['/ns1//ns2/', 'ns1/ns2/'],
    [' admin ', 'admin/'],
  ])('%j -> %j', (raw, expected) => {
    expect(normaliseNamespace(raw)).toBe(expected);
  });

  it('refuses ..', () => {
    expect(() => normaliseNamespace('ns1/../x')).toThrow(DomainError);
  });
});
