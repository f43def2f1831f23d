import { collectList, normalizeArgv, parseBool, parseKeyValues, sanitizePath } from './cli-args';
import { CliUsageError } from './cli-errors';

const sources = (files: Record<string, string> = {}, stdin = '') => ({
  readFile: (file: string) => {
    const content = files[file];
    if (content === undefined) throw new Error('ENOENT: no such file');
    return content;
  },
  readStdin: () => stdin,
});

describe('normalizeArgv', () => {
  it("rewrites Vault's single-dash long flags to commander's double-dash form", () => {
    expect(normalizeArgv(['kv', 'get', '-format=json', '-mount', 'secret', 'foo'])).toEqual([
      'kv',
      'get',
      '--format=json',
      '--mount',
      'secret',
      'foo',
    ]);
  });

  it('leaves double-dash flags, single letters, a lone dash, values and everything after -- alone', () => {
    expect(normalizeArgv(['--format=json', '-h', '-f', '-', 'a=-b', '--', '-tt', '-format'])).toEqual([
      '--format=json',
      '-h',
      '-f',
      '-',
      'a=-b',
      '--',
      '-tt',
      '-format',
    ]);
  });

  it('keeps = values with spaces and dashes intact', () => {
    expect(normalizeArgv(['-description=a - b'])).toEqual(['--description=a - b']);
  });
});

describe('parseKeyValues', () => {
  it('reads key=value pairs, splitting at the first =', () => {
    expect(parseKeyValues(['a=1', 'b=x=y', 'c='], sources())).toEqual({ a: '1', b: 'x=y', c: '' });
  });

  it('reads @file values and - from stdin', () => {
    expect(parseKeyValues(['cert=@/c.pem', 'pw=-'], sources({ '/c.pem': 'PEM' }, 'secret'))).toEqual({
      cert: 'PEM',
      pw: 'secret',
    });
  });

  it('reads a JSON object from stdin for a lone -', () => {
    expect(parseKeyValues(['-', 'extra=1'], sources({}, '{"data":{"a":1}}'))).toEqual({
      data: { a: 1 },
      extra: '1',
    });
  });

  it('turns a repeated key into a list', () => {
    expect(parseKeyValues(['p=a', 'p=b', 'p=c'], sources())).toEqual({ p: ['a', 'b', 'c'] });
  });

  it('rejects malformed pairs, unreadable files, bad JSON and a second use of stdin', () => {
    expect(() => parseKeyValues(['novalue'], sources())).toThrow(CliUsageError);
    expect(() => parseKeyValues(['=x'], sources())).toThrow(/key=value/);
    expect(() => parseKeyValues(['a=@/missing'], sources())).toThrow(/error reading file \/missing/);
    expect(() => parseKeyValues(['-'], sources({}, '[1]'))).toThrow(/must be an object/);
    expect(() => parseKeyValues(['-'], sources({}, '{'))).toThrow(/failed to parse JSON/);
    expect(() => parseKeyValues(['a=-', 'b=-'], sources({}, 'x'))).toThrow(/only be read once/);
  });

  it('does not let __proto__ keys pollute the result', () => {
    const out = parseKeyValues(['__proto__=x'], sources());
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('small parsers', () => {
  it("parseBool accepts Go's spellings", () => {
    expect(['1', 't', 'true', 'TRUE'].map(parseBool)).toEqual([true, true, true, true]);
    expect(['0', 'f', 'false', 'False'].map(parseBool)).toEqual([false, false, false, false]);
    expect(() => parseBool('yes')).toThrow(CliUsageError);
  });

  it('collectList splits commas and accumulates', () => {
    expect(collectList('b, c', collectList('a', undefined))).toEqual(['a', 'b', 'c']);
  });

  it('sanitizePath drops leading and doubled slashes', () => {
    expect(sanitizePath('//secret//data/x/')).toBe('secret/data/x/');
  });
});
