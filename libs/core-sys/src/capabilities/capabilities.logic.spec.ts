import { DomainError, sysContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import { capabilitiesByPath, capabilitiesRequest } from './capabilities.logic';

const capabilities = (raw: Record<string, unknown>) =>
  capabilitiesRequest(parsedBody(sysContracts.capabilitiesSelf, raw));

describe('capabilitiesRequest', () => {
  it('reads paths as a list or a comma-separated string', () => {
    expect(capabilities({ paths: ['a', 'b'] }).paths).toEqual(['a', 'b']);
    expect(capabilities({ paths: 'a, b,' }).paths).toEqual(['a', 'b']);
  });

  it('falls back to the deprecated path field', () => {
    expect(capabilities({ path: 'secret/x' }).paths).toEqual(['secret/x']);
    expect(capabilities({ paths: [], path: ['y'] }).paths).toEqual(['y']);
  });

  it('carries token and accessor', () => {
    expect(capabilities({ paths: 'a', token: 't', accessor: 'acc' })).toEqual({
      paths: ['a'],
      token: 't',
      accessor: 'acc',
    });
  });

  it('requires at least one path', () => {
    expect(() => capabilities({})).toThrow(new DomainError('invalid_request', 'paths must be supplied'));
    expect(() => capabilities({ paths: ' , ' })).toThrow('paths must be supplied');
  });
});

describe('capabilitiesByPath', () => {
  const caps = (p: string) => (p.startsWith('secret/') ? ['read'] : ['deny']);

  it('adds the single-path compatibility key', () => {
    expect(capabilitiesByPath(['secret/a'], caps)).toEqual({ 'secret/a': ['read'], capabilities: ['read'] });
  });

  it('answers per path for several paths', () => {
    expect(capabilitiesByPath(['secret/a', 'x'], caps)).toEqual({ 'secret/a': ['read'], x: ['deny'] });
  });

  it('keeps paths named like Object.prototype members as own keys', () => {
    const one = capabilitiesByPath(['__proto__'], caps);
    expect(Object.getPrototypeOf(one)).toBe(Object.prototype);
    expect(Object.keys(one)).toEqual(['__proto__', 'capabilities']);
    expect(Object.getOwnPropertyDescriptor(one, '__proto__')?.value).toEqual(['deny']);
    expect(one['capabilities']).toEqual(['deny']);
    const several = capabilitiesByPath(['__proto__', 'constructor', 'secret/a'], caps);
    expect(Object.keys(several)).toEqual(['__proto__', 'constructor', 'secret/a']);
    expect(JSON.parse(JSON.stringify(several))).toEqual(
      JSON.parse('{"__proto__":["deny"],"constructor":["deny"],"secret/a":["read"]}'),
    );
  });
});
