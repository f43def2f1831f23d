import { waitFor } from '@coffer/testing';
import {
  searchDatabaseText,
  startTarget,
  START_TIMEOUT_MS,
  TARGETS,
  uniq,
  type ApiClient,
  type Target,
} from './support';

jest.setTimeout(90_000);

const INVALID = { errors: ['wrapping token is not valid or does not exist'] };

/** Response wrapping over HTTP: the wrap TTL headers, sys/wrapping/*, policies' wrapping TTL bounds. */
describe.each(TARGETS)('%s: response wrapping', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'wrapping' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const as = (token: string) => target.anon.withToken(token);
  const writeSecret = async (path: string, data: Record<string, unknown>) =>
    expect((await root.post(`secret/data/${path}`, { data })).status).toBe(200);
  const wrappedRead = async (path: string, ttl = '5m', header = 'x-vault-wrap-ttl') => {
    const res = await root.get(`secret/data/${path}`, { headers: { [header]: ttl } });
    expect(res.status).toBe(200);
    return res;
  };

  it('wraps a kv v2 read and unwraps it, as the wrapping token, exactly once', async () => {
    const app = uniq('wrapped');
    await writeSecret(app, { password: 'hunter2', n: 1 });
    const plain = await root.get(`secret/data/${app}`);
    const res = await wrappedRead(app);
    expect(res.body).toMatchObject({ data: null, auth: null, lease_id: '', lease_duration: 0 });
    const info = res.body.wrap_info;
    expect(info).toEqual({
      token: expect.any(String),
      accessor: expect.any(String),
      ttl: 300,
      creation_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/),
      creation_path: `secret/data/${app}`,
    });
    expect(res.text).not.toContain('hunter2');

    const unwrapped = await as(info.token).post('sys/wrapping/unwrap');
    expect(unwrapped.status).toBe(200);
    expect(Object.keys(unwrapped.body)).toEqual(Object.keys(plain.body));
    expect(unwrapped.body).toEqual({ ...plain.body, request_id: res.body.request_id });
    expect(unwrapped.body.data.data).toEqual({ password: 'hunter2', n: 1 });

    const again = await as(info.token).post('sys/wrapping/unwrap');
    expect(again).toMatchObject({ status: 400, body: INVALID });
    expect(await root.post('sys/wrapping/unwrap', { token: info.token })).toMatchObject({
      status: 400,
      body: INVALID,
    });
  });

  it('unwraps with the token parameter (X-Service-Wrap-TTL), and looks a token up unauthenticated', async () => {
    const app = uniq('param');
    await writeSecret(app, { k: 'v' });
    const info = (await wrappedRead(app, '90s', 'x-service-wrap-ttl')).body.wrap_info;
    const looked = await target.anon.post('sys/wrapping/lookup', { token: info.token });
    expect(looked.status).toBe(200);
    expect(looked.body.data).toEqual({
      creation_ttl: 90,
      creation_time: info.creation_time,
      creation_path: `secret/data/${app}`,
    });
    const unwrapped = await root.post('sys/wrapping/unwrap', { token: info.token });
    expect(unwrapped.body.data.data).toEqual({ k: 'v' });
    expect(await target.anon.post('sys/wrapping/lookup', { token: info.token })).toMatchObject({
      status: 400,
      body: INVALID,
    });
  });

  it('rewraps into a new token; the old one is gone', async () => {
    const app = uniq('rewrap');
    await writeSecret(app, { r: 'w' });
    const info = (await wrappedRead(app, '2m')).body.wrap_info;
    const res = await root.post('sys/wrapping/rewrap', { token: info.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    const next = res.body.wrap_info;
    expect(next).toMatchObject({ ttl: 120, creation_path: `secret/data/${app}` });
    expect(next.token).not.toBe(info.token);
    expect(await as(info.token).post('sys/wrapping/unwrap')).toMatchObject({ status: 400, body: INVALID });
    expect((await as(next.token).post('sys/wrapping/unwrap')).body.data.data).toEqual({ r: 'w' });
  });

  it('unwrap with a wrap TTL wraps the unwrapped response again, as Vault', async () => {
    const app = uniq('unwrap-rewrap');
    await writeSecret(app, { u: 'w' });
    const first = await wrappedRead(app, '2m');
    const info = first.body.wrap_info;
    const res = await as(info.token).post('sys/wrapping/unwrap', undefined, {
      headers: { 'x-vault-wrap-ttl': '3m' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.text).not.toContain('"u":"w"');
    const next = res.body.wrap_info;
    expect(next).toMatchObject({ ttl: 180, creation_path: 'sys/wrapping/unwrap' });
    expect(next.token).not.toBe(info.token);
    expect(await as(info.token).post('sys/wrapping/unwrap')).toMatchObject({ status: 400, body: INVALID });
    const unwrapped = await as(next.token).post('sys/wrapping/unwrap');
    expect(unwrapped.body).toMatchObject({ request_id: first.body.request_id, data: { data: { u: 'w' } } });
  });

  it('sys/wrapping/wrap wraps the body, and needs a wrap TTL', async () => {
    const res = await root.post(
      'sys/wrapping/wrap',
      { a: 'b', n: 2 },
      { headers: { 'x-vault-wrap-ttl': '60' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.wrap_info).toMatchObject({ ttl: 60, creation_path: 'sys/wrapping/wrap' });
    const unwrapped = await root.post('sys/wrapping/unwrap', { token: res.body.wrap_info.token });
    expect(unwrapped.body.data).toEqual({ a: 'b', n: 2 });
    expect(await root.post('sys/wrapping/wrap', { a: 'b' })).toMatchObject({
      status: 400,
      body: { errors: ['wrapping information was nil; wrapping token not created'] },
    });
  });

  it('wraps an auth answer with wrapped_accessor; the unwrapped token works', async () => {
    const res = await root.post(
      'auth/token/create',
      { policies: ['default'], ttl: '10m' },
      { headers: { 'x-vault-wrap-ttl': '1m' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.auth).toBeNull();
    const info = res.body.wrap_info;
    expect(info.wrapped_accessor).toEqual(expect.any(String));
    const unwrapped = await root.post('sys/wrapping/unwrap', { token: info.token });
    expect(unwrapped.body.auth.accessor).toBe(info.wrapped_accessor);
    expect((await as(unwrapped.body.auth.client_token).get('auth/token/lookup-self')).status).toBe(200);
  });

  it('refuses a wrapping token used as an ordinary token, and keeps it unwrappable', async () => {
    const app = uniq('ordinary');
    await writeSecret(app, { o: 'k' });
    const info = (await wrappedRead(app)).body.wrap_info;
    expect((await as(info.token).get(`secret/data/${app}`)).status).toBe(403);
    expect((await as(info.token).get('auth/token/lookup-self')).status).toBe(403);
    // a third party must hold a valid token of its own
    expect((await as('not-a-token').post('sys/wrapping/unwrap', { token: info.token })).status).toBe(403);
    expect((await as(info.token).post('sys/wrapping/unwrap')).body.data.data).toEqual({ o: 'k' });
  });

  it('answers 400 for bad wrap TTLs and unknown or expired wrapping tokens', async () => {
    const app = uniq('bad');
    await writeSecret(app, { b: 'd' });
    for (const ttl of ['-1', '-10m']) {
      expect(await root.get(`secret/data/${app}`, { headers: { 'x-vault-wrap-ttl': ttl } })).toMatchObject({
        status: 400,
        body: { errors: ['error parsing X-Vault-Wrap-TTL header: requested wrap ttl cannot be negative'] },
      });
    }
    expect((await root.get(`secret/data/${app}`, { headers: { 'x-vault-wrap-ttl': 'abc' } })).status).toBe(
      400,
    );
    for (const token of ['hvs.nosuchtoken', 'x', target.rootToken]) {
      expect(await root.post('sys/wrapping/unwrap', { token })).toMatchObject({ status: 400, body: INVALID });
    }
    expect(await target.anon.post('sys/wrapping/unwrap', {})).toMatchObject({ status: 400, body: INVALID });

    const info = (await wrappedRead(app, '1s')).body.wrap_info;
    await waitFor(
      async () => (await target.anon.post('sys/wrapping/lookup', { token: info.token })).status === 400,
      {
        timeoutMs: 15_000,
        message: 'wrapping token expired',
      },
    );
    expect(await as(info.token).post('sys/wrapping/unwrap')).toMatchObject({ status: 400, body: INVALID });
  });

  it("enforces a policy's min_wrapping_ttl and max_wrapping_ttl", async () => {
    const app = uniq('bounds');
    await writeSecret(app, { x: 'y' });
    const policy = uniq('wrapbounds');
    const rules = `path "secret/data/${app}" {\n capabilities = ["read"]\n min_wrapping_ttl = "1m"\n max_wrapping_ttl = "5m"\n}`;
    expect((await root.put(`sys/policies/acl/${policy}`, { policy: rules })).status).toBe(204);
    const created = await root.post('auth/token/create', { policies: [policy], ttl: '10m' });
    const client = as(created.body.auth.client_token);
    expect((await client.get(`secret/data/${app}`)).status).toBe(403);
    expect((await client.get(`secret/data/${app}`, { headers: { 'x-vault-wrap-ttl': '30s' } })).status).toBe(
      403,
    );
    expect((await client.get(`secret/data/${app}`, { headers: { 'x-vault-wrap-ttl': '6m' } })).status).toBe(
      403,
    );
    const ok = await client.get(`secret/data/${app}`, { headers: { 'x-vault-wrap-ttl': '2m' } });
    expect(ok.status).toBe(200);
    expect(ok.body.wrap_info.ttl).toBe(120);
  });

  it('two concurrent unwraps over HTTP: exactly one wins, 10 runs', async () => {
    const app = uniq('race');
    await writeSecret(app, { race: 'once' });
    for (let run = 0; run < 10; run++) {
      const info = (await wrappedRead(app)).body.wrap_info;
      const results = await Promise.all([
        as(info.token).post('sys/wrapping/unwrap'),
        root.post('sys/wrapping/unwrap', { token: info.token }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)?.body).toEqual(INVALID);
    }
  });

  it('keeps neither the wrapped secret nor the wrapping token in clear in storage (cluster)', async () => {
    const { databaseUrl } = target;
    if (databaseUrl === undefined) return; // dev mode keeps its data in PGlite: platform-storage covers it
    const canary = uniq('wrapped-canary-value');
    const res = await root.post('sys/wrapping/wrap', { canary }, { headers: { 'x-vault-wrap-ttl': '5m' } });
    expect(res.status).toBe(200);
    const found = await searchDatabaseText(databaseUrl, [canary, res.body.wrap_info.token]);
    expect(found.rows).toBeGreaterThan(10);
    expect(found.hits).toEqual([]);
    expect((await root.post('sys/wrapping/unwrap', { token: res.body.wrap_info.token })).body.data).toEqual({
      canary,
    });
  });
});
