import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** sys/mounts over HTTP: list, enable, read, tune, disable, and engines that are not running. */
describe.each(TARGETS)('%s: mounts', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    // the cluster runs no cloud-creds replica: a mounted cloud-b has no running service
    target = await startTarget(kind, { label: 'mounts', replicas: { 'cloud-creds': 0 } });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  it('lists the default mounts at top level and under data', async () => {
    const res = await root.get('sys/mounts');
    expect(res.status).toBe(200);
    for (const body of [res.body, res.body.data]) {
      expect(body['sys/']).toMatchObject({ type: 'system' });
      expect(body['cubbyhole/']).toMatchObject({ type: 'cubbyhole' });
      expect(body['identity/']).toMatchObject({ type: 'identity' });
      expect(body['secret/']).toMatchObject({ type: 'kv', options: { version: '2' } });
    }
    const secret = res.body.data['secret/'];
    expect(secret.accessor).toEqual(expect.any(String));
    expect(secret.uuid).toEqual(expect.any(String));
    expect(secret.config).toMatchObject({
      default_lease_ttl: expect.any(Number),
      max_lease_ttl: expect.any(Number),
    });
  });

  it('enables a kv v1 engine at a new path (204), reads it, and serves it at once', async () => {
    const path = uniq('kv1');
    expect((await root.post(`sys/mounts/${path}`, { type: 'kv', description: 'plain kv' })).status).toBe(204);
    const read = await root.get(`sys/mounts/${path}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ type: 'kv', description: 'plain kv' });
    expect((await root.get('sys/mounts')).body.data[`${path}/`]).toMatchObject({ type: 'kv' });
    expect((await root.put(`${path}/hello`, { v: 'world' })).status).toBe(204);
    expect((await root.get(`${path}/hello`)).body.data).toEqual({ v: 'world' });
  });

  it('enables kv v2 at a nested path with config and options', async () => {
    const path = `${uniq('team')}/nested/kv`;
    const res = await root.post(`sys/mounts/${path}`, {
      type: 'kv',
      options: { version: '2' },
      config: { default_lease_ttl: '1h', max_lease_ttl: '24h' },
    });
    expect(res.status).toBe(204);
    const entry = (await root.get('sys/mounts')).body.data[`${path}/`];
    expect(entry).toMatchObject({
      type: 'kv',
      options: { version: '2' },
      config: { default_lease_ttl: 3600, max_lease_ttl: 86400 },
    });
    expect((await root.put(`${path}/data/x`, { data: { a: 1 } })).status).toBe(200);
  });

  it('refuses a path in use, an unknown type and a missing type', async () => {
    const path = uniq('dup');
    expect((await root.post(`sys/mounts/${path}`, { type: 'kv' })).status).toBe(204);
    const again = await root.post(`sys/mounts/${path}`, { type: 'kv' });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toContain(`path is already in use at ${path}/`);
    expect((await root.post(`sys/mounts/${uniq('bad')}`, { type: 'no-such-engine' })).status).toBe(400);
    expect((await root.post(`sys/mounts/${uniq('bad')}`, {})).status).toBe(400);
    expect((await root.post('sys/mounts/sys', { type: 'kv' })).status).toBe(400);
  });

  it('tunes the lease TTLs and description', async () => {
    const path = uniq('tune');
    await root.post(`sys/mounts/${path}`, { type: 'kv' });
    expect(
      (
        await root.post(`sys/mounts/${path}/tune`, {
          default_lease_ttl: '30m',
          max_lease_ttl: 7200,
          description: 'tuned',
        })
      ).status,
    ).toBe(204);
    const tuned = await root.get(`sys/mounts/${path}/tune`);
    expect(tuned.status).toBe(200);
    expect(tuned.body.data).toMatchObject({
      default_lease_ttl: 1800,
      max_lease_ttl: 7200,
      description: 'tuned',
    });
    expect((await root.post(`sys/mounts/${path}/tune`, { default_lease_ttl: 'soon' })).status).toBe(400);
  });

  it('disables a mount (204): it leaves the list and its paths have no handler', async () => {
    const path = uniq('bye');
    await root.post(`sys/mounts/${path}`, { type: 'kv' });
    await root.put(`${path}/k`, { v: '1' });
    expect((await root.delete(`sys/mounts/${path}`)).status).toBe(204);
    expect((await root.get('sys/mounts')).body.data[`${path}/`]).toBeUndefined();
    const gone = await root.get(`${path}/k`);
    expect(gone.status).toBe(404);
    expect(gone.body.errors[0]).toContain('no handler for route');
    expect((await root.delete('sys/mounts/sys')).status).toBe(400);
  });

  it('answers 503 at once for a mounted engine type that has no running service', async () => {
    // cluster: started without cloud-creds replicas; dev mode runs every service in its one process
    const path = uniq('cloudb');
    expect((await root.post(`sys/mounts/${path}`, { type: 'cloud-b' })).status).toBe(204);
    const started = Date.now();
    const res = await root.list(`${path}/roles`);
    expect(Date.now() - started).toBeLessThan(3_000);
    if (kind === 'cluster') {
      expect(res.status).toBe(503);
      expect(res.body.errors).toEqual(['no running replica of the "cloud-creds" service']);
    } else {
      expect(res.status).toBe(404); // served: no roles yet
    }
  });

  it('needs a token with rights on sys/mounts', async () => {
    const created = await root.post('auth/token/create', { policies: ['default'] });
    const user = target.anon.withToken(created.body.auth.client_token);
    expect((await user.get('sys/mounts')).status).toBe(403);
    expect((await user.post(`sys/mounts/${uniq('nope')}`, { type: 'kv' })).status).toBe(403);
  });
});
