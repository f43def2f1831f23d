import { decodeContext } from '@coffer/contracts';
import { call, rawExchange, startHarness, statusesOf, type Harness } from './harness';

describe('gateway HTTP behaviour', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      listeners: { api: { address: '127.0.0.1:0', maxRequestSize: 4096 }, ops: { address: '127.0.0.1:0' } },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('wraps engine data in the envelope and sends the engine a normalised request with the caller context', async () => {
    const r = await call(h, 'GET', '/v1/test//echo/a%62c?q=1&q=2&list=false', {
      headers: { 'x-custom': 'yes', 'x-other': 'no' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(r.body)).toEqual([
      'request_id',
      'lease_id',
      'renewable',
      'lease_duration',
      'data',
      'wrap_info',
      'warnings',
      'auth',
    ]);
    expect(r.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.data).toEqual({
      operation: 'read',
      path: 'echo/abc',
      params: { name: 'abc' },
      body: {},
      query: { q: '1' },
      headers: { 'x-custom': 'yes' },
    });
    const sent = h.engine.requests.at(-1);
    const ctx = decodeContext(sent?.headers ?? {});
    expect(ctx).toMatchObject({
      requestId: r.body.request_id,
      namespace: '',
      accessor: 'root-accessor',
      root: true,
      policies: ['root'],
    });
    expect(ctx?.clientAddress).toBe('127.0.0.1');
    expect(JSON.stringify(sent)).not.toContain('root-token');
  });

  it('treats POST and PUT alike and accepts bodies without a content type', async () => {
    for (const method of ['POST', 'PUT']) {
      const r = await call(h, method, '/v1/test/echo/x', {
        rawBody: '{"a":1}',
        headers: { 'content-type': method === 'PUT' ? '' : 'not a media type' },
      });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ operation: 'update', body: { a: 1 } });
    }
    expect((await call(h, 'POST', '/v1/test/echo/x')).body.data.body).toEqual({});
  });

  it('answers 204 for a write with nothing to return and 404 for an empty read', async () => {
    const w = await call(h, 'POST', '/v1/test/special/empty', { body: {} });
    expect(w.status).toBe(204);
    expect(w.text).toBe('');
    const r = await call(h, 'GET', '/v1/test/special/empty');
    expect(r).toMatchObject({ status: 404, body: { errors: [] } });
  });

  it('passes raw, injected and accepted responses through', async () => {
    const raw = await call(h, 'GET', '/v1/test/special/raw');
    expect(raw).toMatchObject({ status: 299, body: { raw: true } });
    const text = await call(h, 'GET', '/v1/test/special/text');
    expect(text.text).toBe('plain text');
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    const injected = await call(h, 'GET', '/v1/test/special/injected');
    expect(injected.body.keys).toEqual(['x']);
    expect(injected.body.data.keys).toEqual(['x']);
    expect(injected.body.request_id).not.toBe('shadowed');
    const accepted = await call(h, 'POST', '/v1/test/special/accepted');
    expect(accepted).toMatchObject({ status: 202, body: { warnings: ['started'] } });
  });

  it('maps engine errors through the error table', async () => {
    expect(await call(h, 'GET', '/v1/test/special/denied')).toMatchObject({
      status: 403,
      body: { errors: ['1 error occurred:\n\t* permission denied\n\n'] },
    });
    expect(await call(h, 'GET', '/v1/test/special/bad')).toMatchObject({
      status: 400,
      body: { errors: ['check-and-set parameter did not match the current version'] },
    });
    const gone = await call(h, 'GET', '/v1/test/special/gone');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({
      errors: [],
      data: { data: null, metadata: { version: 2, destroyed: true } },
      warnings: ['deleted'],
    });
    const boom = await call(h, 'GET', '/v1/test/special/boom');
    expect(boom).toMatchObject({ status: 500, body: { errors: ['internal error'] } });
    expect(boom.text).not.toContain('secret-bearing');
  });

  it('answers 404 and 405 like Vault', async () => {
    expect(await call(h, 'GET', '/v1/nomount/data/x/y')).toMatchObject({
      status: 404,
      body: { errors: ['no handler for route "nomount/data/x/y". route entry not found.'] },
    });
    expect(await call(h, 'GET', '/v1/test/nothing/here')).toMatchObject({
      status: 404,
      body: { errors: ['1 error occurred:\n\t* unsupported path\n\n'] },
    });
    expect(await call(h, 'DELETE', '/v1/test/items/x')).toMatchObject({
      status: 405,
      body: { errors: ['1 error occurred:\n\t* unsupported operation\n\n'] },
    });
    expect(await call(h, 'OPTIONS', '/v1/test/echo/x')).toMatchObject({ status: 405, body: { errors: [] } });
    expect(await call(h, 'GET', '/v1/test/echo/x?list=maybe')).toMatchObject({
      status: 400,
      body: { errors: [] },
    });
    expect(await call(h, 'GET', '/v1')).toMatchObject({ status: 404, body: { errors: [] } });
    expect(await call(h, 'GET', '/elsewhere')).toMatchObject({ status: 404, body: { errors: [] } });
  });

  it('answers 404 unsupported path for a path parameter ending in a period', async () => {
    expect(await call(h, 'GET', '/v1/test/echo/name.')).toMatchObject({
      status: 404,
      body: { errors: ['1 error occurred:\n\t* unsupported path\n\n'] },
    });
    expect((await call(h, 'GET', '/v1/test/echo/na.me')).status).toBe(200);
  });

  it('refuses ".." segments, raw or encoded, so a path cannot leave its mount', async () => {
    for (const target of [
      '/v1/test/../sys/seal',
      '/v1/test/%2e%2e/sys/seal',
      '/v1/test/%2E%2e%2Fsys/seal',
      '/v1/test/echo/..',
    ]) {
      const raw = await rawExchange(
        h.url,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Service-Token: root-token\r\nConnection: close\r\n\r\n`,
      );
      expect(statusesOf(raw)).toEqual([400]);
      expect(raw).toContain('{"errors":["invalid request path: \\"..\\" segments are not allowed"]}');
    }
    // "." segments and "//" are collapsed
    const dots = await rawExchange(
      h.url,
      'GET /v1/test/./echo//%2e/x HTTP/1.1\r\nHost: x\r\nX-Service-Token: root-token\r\nConnection: close\r\n\r\n',
    );
    expect(statusesOf(dots)).toEqual([200]);
    expect(dots).toContain('"path":"echo/x"');
  });

  it('answers 400 for a path that does not decode', async () => {
    const raw = await rawExchange(
      h.url,
      'GET /v1/test/echo/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(statusesOf(raw)).toEqual([400]);
    expect(raw).toContain('{"errors":["invalid URL escape in the request path"]}');
  });

  it('limits the body to the listener max_request_size with 413', async () => {
    const big = await call(h, 'POST', '/v1/test/echo/x', {
      rawBody: JSON.stringify({ a: 'x'.repeat(5000) }),
    });
    expect(big).toMatchObject({ status: 413, body: { errors: ['http: request body too large'] } });
    const chunked = await rawExchange(
      h.url,
      `POST /v1/test/echo/x HTTP/1.1\r\nHost: x\r\nX-Service-Token: root-token\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `1000\r\n${'y'.repeat(4096)}\r\n10\r\n${'z'.repeat(16)}\r\n0\r\n\r\n`,
    );
    expect(statusesOf(chunked)).toEqual([413]);
    expect((await call(h, 'POST', '/v1/test/echo/x', { body: { a: 'small' } })).status).toBe(200);
  });

  it('answers 400 for malformed JSON and for bodies that are not objects', async () => {
    for (const rawBody of ['{"a":', '[1,2]', '"text"']) {
      expect(await call(h, 'POST', '/v1/test/echo/x', { rawBody })).toMatchObject({
        status: 400,
        body: { errors: ['error parsing JSON'] },
      });
    }
  });

  it('validates bodies and queries against the route schemas', async () => {
    expect(await call(h, 'POST', '/v1/test/validated', { body: { count: 3 } })).toMatchObject({
      status: 200,
      body: { data: { count: 3 } },
    });
    const bad = await call(h, 'POST', '/v1/test/validated', { body: { count: 'three' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatch(/^invalid request body: count: /);
  });

  it('requires application/merge-patch+json for PATCH', async () => {
    const ok = await call(h, 'PATCH', '/v1/test/echo/x', {
      body: { a: null },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(ok.body.data).toMatchObject({ operation: 'patch', body: { a: null } });
    expect(
      await call(h, 'PATCH', '/v1/test/echo/x', {
        body: {},
        headers: { 'content-type': 'application/json' },
      }),
    ).toMatchObject({
      status: 415,
      body: {
        errors: ['PATCH requires Content-Type of application/merge-patch+json, provided application/json'],
      },
    });
  });

  it('validates the wrap TTL header', async () => {
    expect(await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-vault-wrap-ttl': '-1' } })).toMatchObject({
      status: 400,
      body: { errors: ['error parsing X-Vault-Wrap-TTL header: requested wrap ttl cannot be negative'] },
    });
    expect(
      (await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-service-wrap-ttl': '5m' } })).status,
    ).toBe(200);
  });

  it('serves help and OpenAPI for a path and the routes below it', async () => {
    const r = await call(h, 'GET', '/v1/test/items?help=1');
    expect(r.status).toBe(200);
    expect(typeof r.body.help).toBe('string');
    expect(r.body.help).toContain('Items with separate create and update handlers.');
    expect(Object.keys(r.body.openapi.paths)).toEqual(['/{name}']);
    const mount = await call(h, 'GET', '/v1/test/?help=1');
    expect(Object.keys(mount.body.openapi.paths)).toEqual(
      expect.arrayContaining(['/echo/{name}', '/validated', '/root-only']),
    );
    expect(
      mount.body.openapi.paths['/validated'].post.requestBody.content['application/json'].schema.properties
        .count.type,
    ).toBe('integer');
    expect(await call(h, 'GET', '/v1/test/nothing?help=1')).toMatchObject({ status: 404 });
    expect(await call(h, 'GET', '/v1/test/items?help=1', { token: null })).toMatchObject({ status: 403 });
  });

  it('serves /health on the ops listener', async () => {
    const ops = h.gateway.opsAddress ?? '';
    const res = await fetch(`${ops}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await fetch(`${ops}/health`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${ops}/other`)).status).toBe(404);
  });
});
