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
});
