import { DomainError } from '@coffer/contracts';
import { parseRequest } from './parse-request';
import { isFormEncoded, parseFormBody } from './request-body';

describe('form-encoded bodies (routes declaring formBody)', () => {
  it('recognises the media type, parameters allowed', () => {
    expect(isFormEncoded('application/x-www-form-urlencoded')).toBe(true);
    expect(isFormEncoded('Application/X-WWW-Form-Urlencoded; charset=utf-8')).toBe(true);
    expect(isFormEncoded('application/json')).toBe(false);
    expect(isFormEncoded(undefined)).toBe(false);
  });

  it('decodes fields as strings, "+" and percent escapes included', () => {
    expect(
      parseFormBody(
        Buffer.from('grant_type=authorization_code&code=a%2Bb&redirect_uri=https%3A%2F%2Fx%2Fcb&s=a+b'),
      ),
    ).toEqual({
      grant_type: 'authorization_code',
      code: 'a+b',
      redirect_uri: 'https://x/cb',
      s: 'a b',
    });
    expect(parseFormBody(undefined)).toEqual({});
    expect(Object.getPrototypeOf(parseFormBody('__proto__=x'))).toBe(Object.prototype);
    expect(parseFormBody('__proto__=x')).toEqual(JSON.parse('{"__proto__":"x"}'));
  });

  it('refuses a parameter sent twice (RFC 6749 section 3.1)', () => {
    expect(() => parseFormBody('code=a&code=b')).toThrow(
      new DomainError('invalid_request', 'parameter "code" is included more than once'),
    );
  });

  it('is read as form only where the route allows it; elsewhere the body is JSON', () => {
    const req = {
      method: 'POST',
      url: '/v1/identity/oidc/provider/p/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from('a=1'),
    };
    const head = parseRequest({ ...req, body: undefined });
    expect(head.formEncoded).toBe(true);
    expect(() => parseRequest(req)).toThrow('error parsing JSON');
  });
});
