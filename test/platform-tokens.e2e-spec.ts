import { waitFor } from '@coffer/testing';
import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** The token store over HTTP: create, lookup, renew, revoke, hierarchy, accessors, uses, expiry. */
describe.each(TARGETS)('%s: tokens', (kind) => {
  let target: Target;
  let root: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'tokens' });
    root = target.root;
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const as = (token: string) => target.anon.withToken(token);
  const create = async (client: ApiClient, body: Record<string, unknown>, path = 'auth/token/create') => {
    const res = await client.post(path, body);
    expect(res.status).toBe(200);
    return res.body.auth as { client_token: string; accessor: string; policies: string[]; orphan: boolean };
  };
  const writePolicy = async (name: string, policy: string) =>
    expect((await root.put(`sys/policies/acl/${name}`, { policy })).status).toBe(204);
  const isValid = async (token: string) => (await as(token).get('auth/token/lookup-self')).status === 200;

  it('creates a token with policies, ttl, metadata and a display name', async () => {
    const res = await root.post('auth/token/create', {
      policies: ['default', 'web'],
      ttl: '1h',
      meta: { team: 'blue' },
      display_name: 'ci-job',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    const auth = res.body.auth;
    expect(auth).toMatchObject({
      policies: ['default', 'web'],
      token_policies: ['default', 'web'],
      metadata: { team: 'blue' },
      lease_duration: 3600,
      renewable: true,
      orphan: false,
      num_uses: 0,
      token_type: 'service',
    });
    expect(auth.client_token).toEqual(expect.any(String));
    expect(auth.accessor).toEqual(expect.any(String));
    expect(auth.accessor).not.toBe(auth.client_token);
    expect(res.body.warnings).toEqual(expect.arrayContaining([expect.stringContaining('web')]));
  });

  it('looks a token up by itself, by value and by accessor', async () => {
    const t = await create(root, { policies: ['default'], ttl: '30m', display_name: 'lookup' });
    const self = await as(t.client_token).get('auth/token/lookup-self');
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({
      id: t.client_token,
      accessor: t.accessor,
      policies: ['default'],
      display_name: 'token-lookup',
      num_uses: 0,
      orphan: false,
      path: 'auth/token/create',
      type: 'service',
    });
    expect(self.body.data.ttl).toBeGreaterThan(1790);
    expect(self.body.data.ttl).toBeLessThanOrEqual(1800);

    const byValue = await root.post('auth/token/lookup', { token: t.client_token });
    expect(byValue.status).toBe(200);
    expect(byValue.body.data.accessor).toBe(t.accessor);

    const byAccessor = await root.post('auth/token/lookup-accessor', { accessor: t.accessor });
    expect(byAccessor.status).toBe(200);
    expect(byAccessor.body.data).toMatchObject({
      id: '',
      accessor: t.accessor,
      display_name: 'token-lookup',
    });
  });

  it('renews by itself, by value and by accessor', async () => {
    const t = await create(root, { policies: ['default'], ttl: '10m' });
    const self = await as(t.client_token).post('auth/token/renew-self', { increment: '20m' });
    expect(self.status).toBe(200);
    expect(self.body.auth).toMatchObject({
      client_token: t.client_token,
      lease_duration: 1200,
      renewable: true,
    });

    const byValue = await root.post('auth/token/renew', { token: t.client_token, increment: 1500 });
    expect(byValue.status).toBe(200);
    expect(byValue.body.auth.lease_duration).toBe(1500);

    const byAccessor = await root.post('auth/token/renew-accessor', {
      accessor: t.accessor,
      increment: '15m',
    });
    expect(byAccessor.status).toBe(200);
    expect(byAccessor.body.auth).toMatchObject({ client_token: '', lease_duration: 900 });
  });

  it('does not renew a token created non-renewable', async () => {
    const t = await create(root, { policies: ['default'], ttl: '10m', renewable: false });
    const res = await as(t.client_token).post('auth/token/renew-self', {});
    expect(res.status).toBe(400);
  });

  it('revokes children with their parent, but not orphans', async () => {
    const creator = uniq('creator');
    await writePolicy(
      creator,
      'path "auth/token/create" { capabilities = ["create", "update"] }\n' +
        'path "auth/token/create-orphan" { capabilities = ["create", "update"] }',
    );
    const parent = await create(root, { policies: [creator] });
    const child = await create(as(parent.client_token), { policies: ['default'] });
    expect(child.orphan).toBe(false);
    const orphan = await create(
      as(parent.client_token),
      { policies: ['default'] },
      'auth/token/create-orphan',
    );
    expect(orphan.orphan).toBe(true);
    const grandchildParent = await create(as(parent.client_token), { policies: [creator] });
    const grandchild = await create(as(grandchildParent.client_token), { policies: ['default'] });

    expect((await root.post('auth/token/revoke', { token: parent.client_token })).status).toBe(204);
    expect(await isValid(parent.client_token)).toBe(false);
    expect(await isValid(child.client_token)).toBe(false);
    expect(await isValid(grandchild.client_token)).toBe(false);
    expect(await isValid(orphan.client_token)).toBe(true);
  });

  it('creates orphans with no_parent (root only)', async () => {
    const t = await create(root, { policies: ['default'], no_parent: true });
    expect(t.orphan).toBe(true);
    const user = await create(root, { policies: ['default'] });
    const res = await as(user.client_token).post('auth/token/create', { no_parent: true });
    expect(res.status).toBe(403);
  });

  it('revoke-orphan keeps the children alive as orphans (sudo)', async () => {
    const creator = uniq('creator');
    await writePolicy(creator, 'path "auth/token/create" { capabilities = ["create", "update"] }');
    const parent = await create(root, { policies: [creator] });
    const child = await create(as(parent.client_token), { policies: ['default'] });
    expect(
      (await as(child.client_token).post('auth/token/revoke-orphan', { token: parent.client_token })).status,
    ).toBe(403);
    expect((await root.post('auth/token/revoke-orphan', { token: parent.client_token })).status).toBe(204);
    expect(await isValid(parent.client_token)).toBe(false);
    const lookup = await as(child.client_token).get('auth/token/lookup-self');
    expect(lookup.status).toBe(200);
    expect(lookup.body.data.orphan).toBe(true);
  });

  it('revokes by accessor and by itself', async () => {
    const a = await create(root, { policies: ['default'] });
    expect((await root.post('auth/token/revoke-accessor', { accessor: a.accessor })).status).toBe(204);
    expect(await isValid(a.client_token)).toBe(false);

    const b = await create(root, { policies: ['default'] });
    expect((await as(b.client_token).post('auth/token/revoke-self')).status).toBe(204);
    expect(await isValid(b.client_token)).toBe(false);
  });

  it('lists accessors with sudo only', async () => {
    const t = await create(root, { policies: ['default'] });
    const listed = await root.list('auth/token/accessors');
    expect(listed.status).toBe(200);
    expect(listed.body.data.keys).toContain(t.accessor);
    expect(listed.body.data.keys).not.toContain(t.client_token);
    expect((await as(t.client_token).list('auth/token/accessors')).status).toBe(403);
  });

  it('honours num_uses: the token dies after its last use', async () => {
    const t = await create(root, { policies: ['default'], num_uses: 2 });
    const first = await as(t.client_token).get('auth/token/lookup-self');
    expect(first.status).toBe(200);
    expect(first.body.data.num_uses).toBe(1);
    expect((await as(t.client_token).get('auth/token/lookup-self')).status).toBe(200);
    const third = await as(t.client_token).get('auth/token/lookup-self');
    expect(third.status).toBe(403);
  });

  it('enforces expiry', async () => {
    const t = await create(root, { policies: ['default'], ttl: '2s' });
    expect(await isValid(t.client_token)).toBe(true);
    await waitFor(async () => !(await isValid(t.client_token)), {
      timeoutMs: 10_000,
      intervalMs: 200,
      message: 'waiting for expiry',
    });
    const res = await as(t.client_token).get('auth/token/lookup-self');
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toContain('invalid token');
  });

  it('caps renewals at explicit_max_ttl', async () => {
    const t = await create(root, { policies: ['default'], ttl: '10m', explicit_max_ttl: '15m' });
    const res = await as(t.client_token).post('auth/token/renew-self', { increment: '1h' });
    expect(res.status).toBe(200);
    expect(res.body.auth.lease_duration).toBeLessThanOrEqual(900);
  });

  it('refuses child policies outside the parent set, and custom ids from non-root', async () => {
    const user = await create(root, { policies: ['default'] });
    const creator = uniq('creator');
    await writePolicy(creator, 'path "auth/token/create" { capabilities = ["create", "update"] }');
    const parent = await create(root, { policies: [creator] });
    expect((await as(parent.client_token).post('auth/token/create', { policies: ['root'] })).status).toBe(
      400,
    );
    expect((await as(user.client_token).post('auth/token/create', {})).status).toBe(403);
    expect((await as(parent.client_token).post('auth/token/create', { id: 'my-own-id' })).status).toBe(400);
  });

  it('lets root choose the token id', async () => {
    const id = uniq('custom-token');
    const t = await create(root, { id, policies: ['default'] });
    expect(t.client_token).toBe(id);
    expect(await isValid(id)).toBe(true);
  });

  it('accepts the token in X-Service-Token, X-Vault-Token and Authorization: Bearer', async () => {
    const t = await create(root, { policies: ['default'] });
    const anon = target.anon;
    const variants: Record<string, string>[] = [
      { 'x-service-token': t.client_token },
      { 'x-vault-token': t.client_token },
      { authorization: `Bearer ${t.client_token}` },
    ];
    for (const headers of variants) {
      const res = await anon.get('auth/token/lookup-self', { headers });
      expect(res.status).toBe(200);
      expect(res.body.data.accessor).toBe(t.accessor);
    }
  });

  it('answers 403 "permission denied" without a token and adds "invalid token" for a bad one', async () => {
    const missing = await target.anon.get('auth/token/lookup-self');
    expect(missing.status).toBe(403);
    expect(missing.body.errors[0]).toContain('permission denied');

    const bad = await as('not-a-real-token').get('auth/token/lookup-self');
    expect(bad.status).toBe(403);
    expect(bad.body.errors[0]).toContain('permission denied');
    expect(bad.body.errors[0]).toContain('invalid token');
  });

  it('gives root tokens no expiry', async () => {
    const res = await root.get('auth/token/lookup-self');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ policies: ['root'], ttl: 0, expire_time: null });
  });
});
