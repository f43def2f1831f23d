import { DomainError } from '@coffer/contracts';
import { GatewayError } from '../errors/gateway-error';
import { checkMergePatchContentType, parseJsonBody } from './request-body';
import { readNamespaceHeader, readToken, readWrapTtl } from './request-headers';
import { classifyRequest } from './request-kind';
import { parseGoBool, parseQuery } from './request-query';

const caught = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('parseQuery', () => {
  it('keeps the first value, form-decodes and takes out list and help', () => {
    const q = parseQuery('a=1&a=2&b=x+y%21&list=true&list=false&help=1&c');
    expect(q.values).toEqual({ a: '1', b: 'x y!', c: '' });
    expect(q.list).toBe('true');
    expect(q.help).toBe('1');
  });

  it('handles the empty query and __proto__', () => {
    expect(parseQuery('').values).toEqual({});
    const q = parseQuery('__proto__=x');
    expect(Object.getPrototypeOf(q.values)).toBe(Object.prototype);
    expect(q.values['__proto__']).toBe('x');
  });

  it('parses booleans like Go', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) expect(parseGoBool(t)).toBe(true);
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) expect(parseGoBool(f)).toBe(false);
    expect((caught(() => parseGoBool('yes')) as DomainError).code).toBe('invalid_request');
  });
});

describe('classifyRequest', () => {
  it('maps methods', () => {
    expect(classifyRequest('GET', parseQuery(''))).toBe('read');
    expect(classifyRequest('HEAD', parseQuery(''))).toBe('read');
    expect(classifyRequest('GET', parseQuery('list=true'))).toBe('list');
    expect(classifyRequest('GET', parseQuery('list=false'))).toBe('read');
    expect(classifyRequest('GET', parseQuery('list='))).toBe('read');
    expect(classifyRequest('POST', parseQuery('list=true'))).toBe('write');
    expect(classifyRequest('PUT', parseQuery(''))).toBe('write');
    expect(classifyRequest('PATCH', parseQuery(''))).toBe('patch');
    expect(classifyRequest('DELETE', parseQuery(''))).toBe('delete');
    expect(classifyRequest('POST', parseQuery('help=1'))).toBe('help');
    expect(classifyRequest('GET', parseQuery('help='))).toBe('read');
  });

  it('refuses other methods with 405 and bad list values with 400', () => {
    expect((caught(() => classifyRequest('OPTIONS', parseQuery(''))) as GatewayError).kind).toBe(
      'method_not_allowed',
    );
    expect((caught(() => classifyRequest('GET', parseQuery('list=maybe'))) as DomainError).code).toBe(
      'invalid_request',
    );
  });
});

describe('parseJsonBody', () => {
  it('accepts objects, empty bodies and null', () => {
    expect(parseJsonBody(Buffer.from('{"a":{"b":[1]}}'))).toEqual({ a: { b: [1] } });
    expect(parseJsonBody(undefined)).toEqual({});
    expect(parseJsonBody(Buffer.alloc(0))).toEqual({});
    expect(parseJsonBody(Buffer.from('  \n'))).toEqual({});
    expect(parseJsonBody(Buffer.from('null'))).toEqual({});
  });

  it.each(['{', '[1]', '"x"', '3', 'true', '{"a":1}x'])('refuses %j', (text) => {
    const error = caught(() => parseJsonBody(Buffer.from(text))) as DomainError;
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('error parsing JSON');
  });
});

describe('checkMergePatchContentType', () => {
  it('accepts merge-patch with parameters and any case', () => {
    expect(() => checkMergePatchContentType('application/merge-patch+json')).not.toThrow();
    expect(() => checkMergePatchContentType('Application/Merge-Patch+JSON; charset=utf-8')).not.toThrow();
  });

  it('answers 400 without a media type and 415 for another one', () => {
    expect((caught(() => checkMergePatchContentType(undefined)) as DomainError).message).toBe(
      'mime: no media type',
    );
    const error = caught(() => checkMergePatchContentType('application/json')) as GatewayError;
    expect(error.kind).toBe('unsupported_media_type');
    expect(error.message).toBe(
      'PATCH requires Content-Type of application/merge-patch+json, provided application/json',
    );
  });
});

describe('request headers', () => {
  it('reads the token from X-Service-Token, X-Vault-Token or a Bearer authorization', () => {
    expect(readToken({ 'x-service-token': 's', 'x-vault-token': 'v' })).toBe('s');
    expect(readToken({ 'x-vault-token': 'v', authorization: 'Bearer b' })).toBe('v');
    expect(readToken({ authorization: 'bearer  b ' })).toBe('b');
    expect(readToken({ authorization: 'Basic abc' })).toBeUndefined();
    expect(readToken({ authorization: 'Bearer ' })).toBeUndefined();
    expect(readToken({})).toBeUndefined();
  });

  it('reads the namespace from either spelling', () => {
    expect(readNamespaceHeader({ 'x-service-namespace': 'ns1/' })).toBe('ns1/');
    expect(readNamespaceHeader({ 'x-vault-namespace': 'ns2' })).toBe('ns2');
    expect(readNamespaceHeader({})).toBeUndefined();
  });

  it('parses the wrap TTL in seconds or as a duration and refuses negative ones', () => {
    expect(readWrapTtl({})).toBeUndefined();
    expect(readWrapTtl({ 'x-vault-wrap-ttl': '15' })).toBe(15);
    expect(readWrapTtl({ 'x-service-wrap-ttl': '20m' })).toBe(1200);
    expect((caught(() => readWrapTtl({ 'x-vault-wrap-ttl': '-5s' })) as DomainError).message).toBe(
      'error parsing X-Vault-Wrap-TTL header: requested wrap ttl cannot be negative',
    );
    expect((caught(() => readWrapTtl({ 'x-service-wrap-ttl': 'soon' })) as DomainError).message).toMatch(
      /^error parsing X-Service-Wrap-TTL header: /,
    );
  });
});
