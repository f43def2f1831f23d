import { DomainError } from '@coffer/contracts';
import { capabilitiesData, parseCapabilitiesBody } from './capabilities.logic';

describe('parseCapabilitiesBody', () => {
  it('reads paths as a list or a comma-separated string', () => {
    expect(parseCapabilitiesBody({ paths: ['a', 'b'] }).paths).toEqual(['a', 'b']);
    expect(parseCapabilitiesBody({ paths: 'a, b,' }).paths).toEqual(['a', 'b']);
  });

  it('falls back to the deprecated path field', () => {
    expect(parseCapabilitiesBody({ path: 'secret/x' }).paths).toEqual(['secret/x']);
    expect(parseCapabilitiesBody({ paths: [], path: ['y'] }).paths).toEqual(['y']);
  });

  it('carries token and accessor', () => {
    expect(parseCapabilitiesBody({ paths: 'a', token: 't', accessor: 'acc' })).toEqual({
      paths: ['a'],
      token: 't',
      accessor: 'acc',
    });
  });

  it('requires at least one path', () => {
    expect(() => parseCapabilitiesBody({})).toThrow(
      new DomainError('invalid_request', 'paths must be supplied'),
    );
    expect(() => parseCapabilitiesBody({ paths: ' , ' })).toThrow('paths must be supplied');
  });
});

describe('capabilitiesData', () => {
  const caps = (p: string) => (p.startsWith('secret/') ? ['read'] : ['deny']);

  it('adds the single-path compatibility key', () => {
    expect(capabilitiesData(['secret/a'], caps)).toEqual({ 'secret/a': ['read'], capabilities: ['read'] });
  });

  it('answers per path for several paths', () => {
    expect(capabilitiesData(['secret/a', 'x'], caps)).toEqual({ 'secret/a': ['read'], x: ['deny'] });
  });

  it('keeps paths named like Object.prototype members as own keys', () => {
    const one = capabilitiesData(['__proto__'], caps);
    expect(Object.getPrototypeOf(one)).toBe(Object.prototype);
    expect(Object.keys(one)).toEqual(['__proto__', 'capabilities']);
    expect(Object.getOwnPropertyDescriptor(one, '__proto__')?.value).toEqual(['deny']);
    expect(one['capabilities']).toEqual(['deny']);
    const several = capabilitiesData(['__proto__', 'constructor', 'secret/a'], caps);
    expect(Object.keys(several)).toEqual(['__proto__', 'constructor', 'secret/a']);
    expect(JSON.parse(JSON.stringify(several))).toEqual(
      JSON.parse('{"__proto__":["deny"],"constructor":["deny"],"secret/a":["read"]}'),
    );
  });
});
