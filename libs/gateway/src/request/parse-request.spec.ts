import { DomainError } from '@coffer/contracts';
import { parseRequest } from './parse-request';

const parse = (method: string, url: string, headers: Record<string, string> = {}, body?: string) =>
  parseRequest({ method, url, headers, body: body === undefined ? undefined : Buffer.from(body) });

describe('parseRequest', () => {
  it('joins the namespace header and the path, and reads the credentials', () => {
    const r = parse('GET', '/v1/secret//data/a?x=1', {
      'x-vault-namespace': 'ns1',
      authorization: 'Bearer t',
      'x-vault-wrap-ttl': '30s',
    });
    expect(r).toMatchObject({
      kind: 'read',
      path: 'secret/data/a',
      fullPath: 'ns1/secret/data/a',
      aclPath: 'ns1/secret/data/a',
      token: 't',
      wrapTtl: 30,
    });
    expect(r.aclParams).toEqual({ x: '1' });
    expect(r.body).toEqual({});
  });

  it('gives LIST a folder path for the ACL', () => {
    expect(parse('GET', '/v1/secret/metadata/a?list=true').aclPath).toBe('secret/metadata/a/');
    expect(parse('GET', '/v1/secret/metadata/a/?list=true').aclPath).toBe('secret/metadata/a/');
    expect(parse('GET', '/v1/secret/metadata/a?list=true').path).toBe('secret/metadata/a');
  });

  it('parses write bodies, which the ACL parameter checks then see', () => {
    const r = parse('PUT', '/v1/secret/a', {}, '{"k":"v"}');
    expect(r).toMatchObject({ kind: 'write', body: { k: 'v' }, aclParams: { k: 'v' } });
    expect(parse('DELETE', '/v1/secret/a', {}, '{"k":"v"}').body).toEqual({});
  });

  it('refuses paths outside /v1/', () => {
    expect(() => parse('GET', '/v2/secret')).toThrow(DomainError);
  });
});
