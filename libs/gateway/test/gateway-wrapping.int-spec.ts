import { call, startHarness, token, type Harness } from './harness';

const PERMISSION_DENIED = '1 error occurred:\n\t* permission denied\n\n';

describe('gateway response wrapping', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.core.policies.set(
      'bounded',
      'path "test/echo/*" { capabilities = ["read"]\n min_wrapping_ttl = "1m"\n max_wrapping_ttl = "10m" }',
    );
    h.core.tokens.set('t-bounded', token({ accessor: 'a-bounded', policies: ['bounded'] }));
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers wrap_info instead of the response and hands core-sys the rendered response', async () => {
    const r = await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-service-wrap-ttl': '5m' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      request_id: expect.any(String),
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: null,
      wrap_info: {
        token: expect.any(String),
        accessor: expect.any(String),
        ttl: 300,
        creation_time: expect.any(String),
        creation_path: 'test/echo/x',
      },
      warnings: null,
      auth: null,
    });
    const stored = h.core.wrapped.get(r.body.wrap_info.token);
    expect(stored).toMatchObject({ ttl: 300, path: 'test/echo/x' });
    expect(stored?.response).toMatchObject({
      request_id: r.body.request_id,
      data: { operation: 'read', path: 'echo/x' },
      wrap_info: null,
    });
  });

  it('accepts the Vault header alias and plain seconds, and names the wrapped accessor of an auth answer', async () => {
    const r = await call(h, 'GET', '/v1/test/special/login', { headers: { 'x-vault-wrap-ttl': '90' } });
    expect(r.body.wrap_info).toMatchObject({ ttl: 90, wrapped_accessor: 'issued-accessor' });
    expect(r.body.auth).toBeNull();
    expect(h.core.wrapped.get(r.body.wrap_info.token)?.response).toMatchObject({
      auth: { client_token: 'issued-token' },
    });
  });

  it('does not wrap raw answers, empty answers or a zero TTL', async () => {
    const raw = await call(h, 'GET', '/v1/test/special/raw', { headers: { 'x-vault-wrap-ttl': '60' } });
    expect(raw).toMatchObject({ status: 299, body: { raw: true } });
    const empty = await call(h, 'POST', '/v1/test/special/empty', {
      body: {},
      headers: { 'x-vault-wrap-ttl': '60' },
    });
    expect(empty.status).toBe(204);
    const zero = await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-vault-wrap-ttl': '0' } });
    expect(zero.body.wrap_info).toBeNull();
    expect(zero.body.data).toMatchObject({ path: 'echo/x' });
  });

  it('refuses invalid wrap TTLs with 400 and wraps nothing', async () => {
    const before = h.core.wrapped.size;
    for (const [value, reason] of [
      ['-1', 'requested wrap ttl cannot be negative'],
      ['-5m', 'requested wrap ttl cannot be negative'],
    ] as const) {
      const r = await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-vault-wrap-ttl': value } });
      expect(r).toMatchObject({
        status: 400,
        body: { errors: [`error parsing X-Vault-Wrap-TTL header: ${reason}`] },
      });
    }
    const bad = await call(h, 'GET', '/v1/test/echo/x', { headers: { 'x-service-wrap-ttl': 'soon' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatch(/^error parsing X-Service-Wrap-TTL header: /);
    expect(h.core.wrapped.size).toBe(before);
  });

  it("enforces the policy's min_wrapping_ttl and max_wrapping_ttl", async () => {
    const get = (ttl?: string) =>
      call(h, 'GET', '/v1/test/echo/x', {
        token: 't-bounded',
        headers: ttl === undefined ? {} : { 'x-vault-wrap-ttl': ttl },
      });
    for (const ttl of [undefined, '30s', '11m']) {
      expect(await get(ttl)).toMatchObject({ status: 403, body: { errors: [PERMISSION_DENIED] } });
    }
    const ok = await get('5m');
    expect(ok.status).toBe(200);
    expect(ok.body.wrap_info.ttl).toBe(300);
  });
});
