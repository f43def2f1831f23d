import { auditHmac } from '@coffer/contracts';
import { deviceFormat, hashStructure, requestLine, responseLine, type AuditedRequest } from './audit-entry';
import { auditedResult } from './audit-trail';

const SALT = 'salt';
const h = (v: string) => auditHmac(SALT, v);

const request: AuditedRequest = {
  id: 'req-1',
  time: new Date('2026-01-02T03:04:05.000Z'),
  operation: 'list',
  path: 'secret/metadata/',
  namespace: '',
  mount: { type: 'kv', accessor: 'kv_1234', path: 'secret/' },
  clientToken: 'hvs.token',
  token: {
    accessor: 'acc',
    tokenRef: 'ref',
    policies: ['default', 'dev'],
    identityPolicies: [],
    entityId: 'ent',
    displayName: 'userpass-bob',
    expiresAt: 0,
    cacheable: true,
  },
  policies: ['default', 'dev'],
  remoteAddress: '10.0.0.1',
  headers: { 'x-request-id': 'abc', 'user-agent': 'curl', 'x-service-token': 'hvs.token' },
};

describe('audit entries', () => {
  it('hashes every string, keeps numbers, booleans, nulls and the structure', () => {
    expect(hashStructure({ a: 'x', n: 1, b: false, z: null, l: ['y', 2, { c: 'z' }] }, h)).toEqual({
      a: h('x'),
      n: 1,
      b: false,
      z: null,
      l: [h('y'), 2, { c: h('z') }],
    });
  });

  it('leaves RFC 3339 timestamps clear, as Vault', () => {
    expect(hashStructure({ t: '2026-01-02T03:04:05.123456789Z', u: '2026-01-02 03:04' }, h)).toEqual({
      t: '2026-01-02T03:04:05.123456789Z',
      u: h('2026-01-02 03:04'),
    });
  });

  it("leaves the values under a mount's non-HMAC keys clear, at any depth", () => {
    const data = { keep: 'a', hide: 'b', nested: { keep: ['c', { other: 'd' }] } };
    expect(hashStructure(data, h, ['keep'])).toEqual({
      keep: 'a',
      hide: h('b'),
      nested: { keep: ['c', { other: h('d') }] },
    });
    const mount = { ...request.mount!, nonHmacRequestKeys: ['user'], nonHmacResponseKeys: ['lease'] };
    const audited = { ...request, operation: 'update', mount, data: { user: 'bob', password: 'pw' } };
    const req = JSON.parse(requestLine(audited, undefined, [], deviceFormat(SALT, {})));
    expect(req.request.data).toEqual({ user: 'bob', password: h('pw') });
    const res = JSON.parse(
      responseLine(
        audited,
        { response: { data: { lease: 'x', user: 'y' } } },
        [],
        deviceFormat(SALT, {}),
        request.time,
      ),
    );
    expect(res.response.data).toEqual({ lease: 'x', user: h('y') });
  });

  it('keeps a "__proto__" key as data', () => {
    const input = JSON.parse('{"__proto__":{"polluted":"yes"}}') as unknown;
    const out = hashStructure(input, h) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('renders a request entry with Vault field names, tokens and accessors hashed', () => {
    const line = requestLine(
      request,
      undefined,
      [
        { name: 'x-request-id', hmac: true },
        { name: 'user-agent', hmac: false },
      ],
      deviceFormat(SALT, {}),
    );
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      time: '2026-01-02T03:04:05.000Z',
      type: 'request',
      auth: {
        client_token: h('hvs.token'),
        accessor: h('acc'),
        display_name: 'userpass-bob',
        policies: ['default', 'dev'],
        token_policies: ['default', 'dev'],
        entity_id: 'ent',
        token_type: 'service',
      },
      request: {
        id: 'req-1',
        operation: 'list',
        mount_type: 'kv',
        mount_accessor: 'kv_1234',
        mount_point: 'secret/',
        client_token: h('hvs.token'),
        client_token_accessor: h('acc'),
        namespace: { id: 'root' },
        path: 'secret/metadata/',
        remote_address: '10.0.0.1',
        headers: { 'x-request-id': [h('abc')], 'user-agent': ['curl'] },
      },
    });
  });

  it('audits a wrapped answer by its wrap_info: token and accessors hashed, no data or auth', () => {
    const wrapInfo = {
      token: 'hvs.wrapping',
      accessor: 'wacc',
      ttl: 300,
      creation_time: '2026-01-02T03:04:05.123456789Z',
      creation_path: 'auth/token/create',
      wrapped_accessor: 'inner',
    };
    const result = {
      kind: 'envelope' as const,
      data: { secret: 'hunter2' },
      warnings: [],
      auth: null,
    };
    const outcome = auditedResult(result, wrapInfo);
    const entry = JSON.parse(responseLine(request, outcome, [], deviceFormat(SALT, {}), request.time));
    expect(entry.response.wrap_info).toEqual({
      token: h('hvs.wrapping'),
      accessor: h('wacc'),
      ttl: 300,
      creation_time: '2026-01-02T03:04:05.123456789Z',
      creation_path: 'auth/token/create',
      wrapped_accessor: h('inner'),
    });
    expect(entry.response.data).toBeUndefined();
    expect(entry.response.auth).toBeUndefined();
    const clearAccessors = deviceFormat(SALT, { hmac_accessor: 'false' });
    const clear = JSON.parse(responseLine(request, outcome, [], clearAccessors, request.time));
    expect(clear.response.wrap_info).toMatchObject({ token: h('hvs.wrapping'), accessor: 'wacc' });
    expect(auditedResult(result).response?.data).toEqual({ secret: 'hunter2' });
  });

  it('names the token type: batch tokens are the ones without an accessor', () => {
    const batch = { ...request, token: { ...request.token!, accessor: '' } };
    const entry = JSON.parse(requestLine(batch, undefined, [], deviceFormat(SALT, {})));
    expect(entry.auth.token_type).toBe('batch');
    expect(entry.auth.accessor).toBeUndefined();
    expect(entry.request.client_token_accessor).toBeUndefined();
  });

  it('elides list responses when asked, and carries the error', () => {
    const format = deviceFormat(SALT, { elide_list_responses: 'true' });
    const line = responseLine(
      request,
      { response: { data: { keys: ['a', 'b', 'c'] } }, error: 'boom' },
      [],
      format,
      request.time,
    );
    const entry = JSON.parse(line) as Record<string, any>;
    expect(entry['response'].data).toEqual({ keys: 3 });
    expect(entry['error']).toBe('boom');
  });

  it('reads Vault option defaults: hmac_accessor true, log_raw false, no prefix', () => {
    expect(deviceFormat(SALT, {})).toEqual({
      salt: SALT,
      logRaw: false,
      hmacAccessor: true,
      elideListResponses: false,
      prefix: '',
      jsonx: false,
    });
  });
});
