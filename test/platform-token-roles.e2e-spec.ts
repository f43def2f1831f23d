import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** Token roles, create/:role, accessors and tidy over HTTP. */
describe.each(TARGETS)('%s: token roles', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'token-roles' });
    root = target.root;
    for (const name of ['web', 'ops', 'admin'])
      expect(
        (
          await root.put(`sys/policies/acl/${name}`, {
            policy: 'path "secret/*" { capabilities = ["read"] }',
          })
        ).status,
      ).toBe(204);
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const as = (token: string) => target.anon.withToken(token);

  it("writes, reads (Vault's field set), lists and deletes a role", async () => {
    const name = uniq('role');
    expect(
      (await root.post(`auth/token/roles/${name}`, { allowed_policies: 'web,ops', orphan: true })).status,
    ).toBe(204);
    const read = await root.get(`auth/token/roles/${name}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      name,
      allowed_policies: ['ops', 'web'],
      disallowed_policies: [],
      allowed_policies_glob: [],
      disallowed_policies_glob: [],
      allowed_entity_aliases: null,
      orphan: true,
      renewable: true,
      path_suffix: '',
      token_type: 'default-service',
      token_no_default_policy: false,
      period: 0,
      token_period: 0,
      explicit_max_ttl: 0,
      token_explicit_max_ttl: 0,
    });
    const list = await root.list('auth/token/roles');
    expect(list.status).toBe(200);
    expect(list.body.data.keys).toContain(name);
    expect((await root.delete(`auth/token/roles/${name}`)).status).toBe(204);
    expect((await root.get(`auth/token/roles/${name}`)).status).toBe(404);
  });

  it('refuses bad role input with 400 and stores nothing', async () => {
    const name = uniq('bad');
    const res = await root.post(`auth/token/roles/${name}`, { token_type: 'weird' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [`invalid 'token_type' value "weird"`] });
    expect((await root.get(`auth/token/roles/${name}`)).status).toBe(404);
  });

  it('creates tokens through a role: policies, path suffix, orphan, period', async () => {
    const name = uniq('web');
    await root.post(`auth/token/roles/${name}`, {
      allowed_policies: 'web',
      path_suffix: 'rev1',
      orphan: true,
      token_period: '1h',
    });
    const res = await root.post(`auth/token/create/${name}`, {});
    expect(res.status).toBe(200);
    expect(res.body.auth).toMatchObject({
      policies: ['default', 'web'],
      orphan: true,
      lease_duration: 3600,
      renewable: true,
      token_type: 'service',
    });
    const lookup = await as(res.body.auth.client_token).get('auth/token/lookup-self');
    expect(lookup.body.data).toMatchObject({
      path: `auth/token/create/${name}/rev1`,
      role: name,
      period: 3600,
      orphan: true,
    });

    const refused = await root.post(`auth/token/create/${name}`, { policies: ['admin'] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [
        `token policies (["admin" "default"]) must be subset of the role's allowed policies (["default" "web"])`,
      ],
    });
  });

  it("refuses a token bound by the role's token_bound_cidrs when used from elsewhere (403)", async () => {
    const far = uniq('far');
    const near = uniq('near');
    await root.post(`auth/token/roles/${far}`, { token_bound_cidrs: '10.0.0.0/8' });
    await root.post(`auth/token/roles/${near}`, { token_bound_cidrs: '127.0.0.0/8,::1,::ffff:127.0.0.1' });
    const farToken = (await root.post(`auth/token/create/${far}`, {})).body.auth.client_token;
    const nearToken = (await root.post(`auth/token/create/${near}`, {})).body.auth.client_token;
    const lookup = await root.post('auth/token/lookup', { token: farToken });
    expect(lookup.body.data.bound_cidrs).toEqual(['10.0.0.0/8']);
    for (let i = 0; i < 2; i++) {
      const refused = await as(farToken).get('auth/token/lookup-self');
      expect(refused.status).toBe(403);
      expect(refused.body.errors[0]).toContain('permission denied');
    }
    expect((await as(nearToken).get('auth/token/lookup-self')).status).toBe(200);
  });

  it("gives a token created with an allowed entity_alias that alias's entity", async () => {
    const name = uniq('aliased');
    await root.post(`auth/token/roles/${name}`, { allowed_entity_aliases: 'svc-*' });
    const alias = uniq('svc-');
    const first = await root.post(`auth/token/create/${name}`, { entity_alias: alias });
    expect(first.status).toBe(200);
    const entityId = first.body.auth.entity_id;
    expect(entityId).not.toBe('');
    const again = await root.post(`auth/token/create/${name}`, { entity_alias: alias });
    expect(again.body.auth.entity_id).toBe(entityId);
    const refused = await root.post(`auth/token/create/${name}`, { entity_alias: 'other' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ errors: ["invalid 'entity_alias' value"] });
  });

  it('answers an unknown role with 400 "unknown role <name>"', async () => {
    const res = await root.post('auth/token/create/no-such-role', {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: ['unknown role no-such-role'] });
  });

  it('lists accessors (sudo) and tidies with 202 and a warning', async () => {
    const created = await root.post('auth/token/create', { policies: ['web'], ttl: '1h' });
    const accessors = await root.list('auth/token/accessors');
    expect(accessors.status).toBe(200);
    expect(accessors.body.data.keys).toContain(created.body.auth.accessor);
    const denied = await as(created.body.auth.client_token).list('auth/token/accessors');
    expect(denied.status).toBe(403);

    const tidy = await root.post('auth/token/tidy', {});
    expect(tidy.status).toBe(202);
    expect(tidy.body.warnings).toEqual([
      "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.",
    ]);
  });

  it('issues batch tokens that work, cannot renew or create children, and die with their parent', async () => {
    const creator = 'path "auth/token/create" { capabilities = ["update"] }';
    expect((await root.put('sys/policies/acl/creator', { policy: creator })).status).toBe(204);
    const parent = await root.post('auth/token/create', { policies: ['web', 'creator'], ttl: '1h' });
    expect(parent.status).toBe(200);
    const parentToken = parent.body.auth.client_token as string;
    const created = await as(parentToken).post('auth/token/create', { type: 'batch', ttl: '10m' });
    expect(created.status).toBe(200);
    const batch = created.body.auth.client_token as string;
    expect(batch).toMatch(/^hvb\./);
    expect(created.body.auth).toMatchObject({ accessor: '', token_type: 'batch', renewable: false });

    const self = await as(batch).get('auth/token/lookup-self');
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({
      id: batch,
      type: 'batch',
      policies: ['creator', 'default', 'web'],
    });

    const renew = await as(batch).post('auth/token/renew-self', {});
    expect(renew.status).toBe(400);
    expect(renew.body).toEqual({ errors: ['batch tokens cannot be renewed'] });
    const child = await as(batch).post('auth/token/create', { policies: ['web'] });
    expect(child.status).toBe(400);
    expect(child.body).toEqual({ errors: ['batch tokens cannot create more tokens'] });

    expect((await root.post('auth/token/revoke', { token: parentToken })).status).toBe(204);
    expect((await as(batch).get('auth/token/lookup-self')).status).toBe(403);
  });

  it('refuses a tampered batch token', async () => {
    const created = await root.post('auth/token/create', { type: 'batch', policies: ['web'] });
    const token = created.body.auth.client_token as string;
    const tampered = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await as(tampered).get('auth/token/lookup-self')).status).toBe(403);
  });
});
