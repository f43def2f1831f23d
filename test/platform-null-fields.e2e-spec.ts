import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/**
 * Vault clients such as hvac send JSON null for every field they leave unset; Vault reads it as
 * "not set". Driven over HTTP so the gateway, the transport and the contracts all take part.
 */
describe.each(TARGETS)('%s: null means "not set"', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'nulls' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const mountNulls = { description: null, config: null, options: null, local: null, seal_wrap: null };

  it('enables and tunes secrets engines and auth methods', async () => {
    const path = uniq('hvac');
    expect((await root.post(`sys/mounts/${path}`, { type: 'kv', ...mountNulls })).status).toBe(204);
    expect((await root.get(`sys/mounts/${path}`)).body.data).toMatchObject({ type: 'kv', description: '' });
    const tune = { default_lease_ttl: null, max_lease_ttl: null, description: null, options: null };
    expect((await root.post(`sys/mounts/${path}/tune`, tune)).status).toBe(204);
    const auth = uniq('hvac-up');
    expect((await root.post(`sys/auth/${auth}`, { type: 'userpass', ...mountNulls })).status).toBe(204);
    expect((await root.post(`sys/auth/${auth}/tune`, { ...tune, token_type: null })).status).toBe(204);
    const user = { password: 'pw', token_policies: null, token_ttl: null, token_num_uses: null };
    expect((await root.post(`auth/${auth}/users/bob`, user)).status).toBe(204);
    expect((await root.post(`auth/${auth}/users/bob`, { ...user, password: null })).status).toBe(204);
    expect((await root.post(`auth/${auth}/login/bob`, { password: 'pw' })).status).toBe(200);
  });

  it('creates, renews and checks tokens', async () => {
    const created = await root.post('auth/token/create', {
      ttl: null,
      policies: ['default'],
      meta: null,
      display_name: null,
      num_uses: null,
      renewable: null,
      explicit_max_ttl: null,
      period: null,
      no_parent: null,
    });
    expect(created.status).toBe(200);
    const { client_token: token, accessor } = created.body.auth;
    const own = root.withToken(token);
    expect((await own.post('auth/token/renew-self', { increment: null })).status).toBe(200);
    expect((await root.post('auth/token/renew-accessor', { accessor, increment: null })).status).toBe(200);
    expect((await root.post('auth/token/renew', { token, increment: null })).status).toBe(200);
    const self = await own.post('sys/capabilities-self', { paths: ['sys/mounts'], path: null });
    expect(self.status).toBe(200);
    expect((await root.post('sys/capabilities', { token, paths: null, path: 'x' })).status).toBe(200);
  });

  it('writes identity entities', async () => {
    const name = uniq('entity');
    const res = await root.post('identity/entity', { name, metadata: null, policies: null, disabled: null });
    expect(res.status).toBe(200);
    expect((await root.post('identity/entity', { name, metadata: null, policies: null })).status).toBe(204);
  });
});
