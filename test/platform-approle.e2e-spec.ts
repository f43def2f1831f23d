import nodeVault from 'node-vault';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(120_000);

/**
 * The AppRole auth method over HTTP: roles, role ids, secret ids, login, Vault's texts for bad
 * input, the single-use race (cluster: two core-sys replicas) and the published node-vault client.
 */
describe.each(TARGETS)('%s: the approle auth method', (kind) => {
  let target: Target;
  let root: ApiClient;
  const role = uniq('svc');
  let roleId = '';

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'approle', replicas: { 'core-sys': 2 } });
    root = target.root;
    await root.put('secret/data/approle/doc', { data: { v: 'for apps' } });
    await root.put('sys/policies/acl/app-reader', {
      policy: 'path "secret/data/approle/*" { capabilities = ["read"] }',
    });
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const login = (body: Record<string, unknown>) => target.anon.post('auth/approle/login', body);
  const newSecretId = async (name: string, body: Record<string, unknown> = {}) => {
    const res = await root.post(`auth/approle/role/${name}/secret-id`, body);
    expect(res.status).toBe(200);
    return res.body.data as { secret_id: string; secret_id_accessor: string };
  };

  it('enables approle (204)', async () => {
    expect((await root.post('sys/auth/approle', { type: 'approle' })).status).toBe(204);
    expect((await root.get('sys/auth')).body.data['approle/']).toMatchObject({ type: 'approle' });
  });

  it('creates (204), reads and lists a role; reads and sets its role id', async () => {
    const written = await root.post(`auth/approle/role/${role}`, {
      token_policies: 'app-reader',
      token_ttl: '1h',
      secret_id_num_uses: 0,
    });
    expect(written.status).toBe(204);
    const read = await root.get(`auth/approle/role/${role}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      bind_secret_id: true,
      token_policies: ['app-reader'],
      token_ttl: 3600,
      secret_id_ttl: 0,
    });
    expect((await root.list('auth/approle/role')).body.data.keys).toContain(role);
    const id = await root.get(`auth/approle/role/${role}/role-id`);
    expect(id.body.data.role_id).toMatch(/^[0-9a-f-]{36}$/);
    roleId = uniq('role-id');
    expect((await root.post(`auth/approle/role/${role}/role-id`, { role_id: roleId })).status).toBe(204);
    expect((await root.get(`auth/approle/role/${role}/role-id`)).body.data.role_id).toBe(roleId);
    expect((await root.get('auth/approle/role/nope')).status).toBe(404);
  });

  it('answers 400 with Vault texts for bad role input', async () => {
    const bad = await root.post(`auth/approle/role/${uniq('bad')}`, { bind_secret_id: false });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['at least one constraint should be enabled on the role']);
    const neg = await root.post(`auth/approle/role/${uniq('bad')}`, { secret_id_num_uses: -1 });
    expect(neg.body.errors).toEqual(['secret_id_num_uses cannot be negative']);
  });

  it('generates secret ids, lists accessors, looks them up and destroys them', async () => {
    const created = await newSecretId(role, { metadata: '{"team":"blue"}', ttl: '10m', num_uses: 5 });
    const res = await root.list(`auth/approle/role/${role}/secret-id`);
    expect(res.body.data.keys).toContain(created.secret_id_accessor);
    const looked = await root.post(`auth/approle/role/${role}/secret-id/lookup`, {
      secret_id: created.secret_id,
    });
    expect(looked.body.data).toMatchObject({
      metadata: { team: 'blue' },
      secret_id_num_uses: 5,
      secret_id_ttl: 600,
      secret_id_accessor: created.secret_id_accessor,
    });
    const byAccessor = await root.post(`auth/approle/role/${role}/secret-id-accessor/lookup`, {
      secret_id_accessor: created.secret_id_accessor,
    });
    expect(byAccessor.body.data).toEqual(looked.body.data);
    expect(
      (
        await root.post(`auth/approle/role/${role}/secret-id-accessor/destroy`, {
          secret_id_accessor: created.secret_id_accessor,
        })
      ).status,
    ).toBe(204);
    const gone = await root.post(`auth/approle/role/${role}/secret-id/lookup`, {
      secret_id: created.secret_id,
    });
    expect(gone.status).toBe(204);
    const unknown = await root.post(`auth/approle/role/${role}/secret-id-accessor/lookup`, {
      secret_id_accessor: created.secret_id_accessor,
    });
    expect(unknown.status).toBe(404);
    const custom = await root.post(`auth/approle/role/${role}/custom-secret-id`, {
      secret_id: uniq('custom'),
    });
    expect(custom.status).toBe(200);
    expect(
      (
        await root.post(`auth/approle/role/${role}/secret-id/destroy`, {
          secret_id: custom.body.data.secret_id,
        })
      ).status,
    ).toBe(204);
    const missingRole = await root.post('auth/approle/role/ghost/secret-id', {});
    expect(missingRole.status).toBe(400);
    expect(missingRole.body.errors).toEqual(['role "ghost" does not exist']);
  });

  it('logs in without a token: a token with the role settings and role_name metadata', async () => {
    const { secret_id } = await newSecretId(role);
    const res = await login({ role_id: roleId, secret_id });
    expect(res.status).toBe(200);
    expect(res.body.auth).toMatchObject({
      policies: ['app-reader', 'default'],
      metadata: { role_name: role },
      lease_duration: 3600,
      renewable: true,
    });
    const app = root.withToken(res.body.auth.client_token);
    expect((await app.get('secret/data/approle/doc')).body.data.data).toEqual({ v: 'for apps' });
  });

  it("refuses bad credentials with Vault's texts", async () => {
    const { secret_id } = await newSecretId(role);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'missing role_id'],
      [{ role_id: roleId }, 'missing secret_id'],
      [{ role_id: 'nope', secret_id }, 'invalid role or secret ID'],
      [{ role_id: roleId, secret_id: 'wrong' }, 'invalid role or secret ID'],
    ];
    for (const [body, text] of cases) {
      const res = await login(body);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([text]);
    }
    const bound = uniq('bound');
    await root.post(`auth/approle/role/${bound}`, { secret_id_bound_cidrs: '10.0.0.0/8' });
    const boundId = (await root.get(`auth/approle/role/${bound}/role-id`)).body.data.role_id;
    const fromHere = await login({ role_id: boundId, secret_id: (await newSecretId(bound)).secret_id });
    expect(fromHere.status).toBe(400);
    expect(fromHere.body.errors[0]).toContain('unauthorized by CIDR restrictions on the role');
  });

  it('a num_uses=1 secret id used by 10 concurrent logins logs in exactly once (50 runs)', async () => {
    for (let run = 0; run < 50; run++) {
      const { secret_id } = await newSecretId(role, { num_uses: 1 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => login({ role_id: roleId, secret_id })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(400);
        expect(r.body.errors).toEqual(['invalid role or secret ID']);
      }
    }
  });

  it('the published node-vault client logs in with AppRole', async () => {
    const { secret_id } = await newSecretId(role);
    const vault = nodeVault({ apiVersion: 'v1', endpoint: target.baseUrl });
    const res = await vault.approleLogin({ role_id: roleId, secret_id });
    expect(res.auth.metadata).toEqual({ role_name: role });
    // approleLogin sets the client's token (node-vault's tokenSource)
    expect(vault.token).toBe(res.auth.client_token);
    expect((await vault.read('secret/data/approle/doc')).data.data).toEqual({ v: 'for apps' });
  });

  it('reads, sets and resets one role field at a time (role/:name/secret-id-num-uses, policies)', async () => {
    const role = uniq('fields');
    expect((await root.post(`auth/approle/role/${role}`, { secret_id_num_uses: 2 })).status).toBe(204);
    const base = `auth/approle/role/${role}`;
    expect((await root.post(`${base}/secret-id-num-uses`, { secret_id_num_uses: 9 })).status).toBe(204);
    expect((await root.get(`${base}/secret-id-num-uses`)).body.data).toEqual({ secret_id_num_uses: 9 });
    expect((await root.delete(`${base}/secret-id-num-uses`)).status).toBe(204);
    expect((await root.get(`${base}/secret-id-num-uses`)).body.data).toEqual({ secret_id_num_uses: 0 });
    expect(await root.post(`${base}/secret-id-num-uses`, {})).toMatchObject({
      status: 400,
      body: { errors: ['missing secret_id_num_uses'] },
    });
    expect((await root.post(`${base}/policies`, { token_policies: ['p1', 'p2'] })).status).toBe(204);
    expect((await root.get(`${base}/policies`)).body.data).toEqual({ token_policies: ['p1', 'p2'] });
    expect((await root.get(`auth/approle/role/${uniq('ghost')}/secret-id-ttl`)).status).toBe(404);
  });

  it("tidy/secret-id answers 202 with Vault's warning", async () => {
    const res = await root.post('auth/approle/tidy/secret-id');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      data: null,
      warnings: [
        "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.",
      ],
    });
  });

  it('deletes a role with its secret ids', async () => {
    const { secret_id } = await newSecretId(role);
    expect((await root.delete(`auth/approle/role/${role}`)).status).toBe(204);
    expect((await root.get(`auth/approle/role/${role}`)).status).toBe(404);
    expect((await login({ role_id: roleId, secret_id })).status).toBe(400);
  });
});
