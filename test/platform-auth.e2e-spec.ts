import { startTarget, START_TIMEOUT_MS, TARGETS, uniq, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/** Auth methods (sys/auth), userpass login, and the identity entities behind logins. */
describe.each(TARGETS)('%s: auth methods, userpass and identity', (kind) => {
  let target: Target;
  let root: ApiClient;
  let userpassAccessor: string;
  const user = uniq('alice');
  const password = 'correct horse battery staple';
  const reader = uniq('reader');

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'auth' });
    root = target.root;
    await root.put('secret/data/userpass/doc', { data: { v: 'for readers' } });
    await root.put('secret/data/entity/doc', { data: { v: 'for the entity' } });
    await root.put(`sys/policies/acl/${reader}`, {
      policy: 'path "secret/data/userpass/*" { capabilities = ["read"] }',
    });
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const login = (name: string, pass: string) =>
    target.anon.post(`auth/userpass/login/${name}`, { password: pass });

  describe('sys/auth', () => {
    it('lists the token method by default', async () => {
      const res = await root.get('sys/auth');
      expect(res.status).toBe(200);
      expect(res.body.data['token/']).toMatchObject({ type: 'token' });
      expect(res.body['token/']).toMatchObject({ type: 'token' });
    });

    it('enables userpass (204) and lists it with its accessor', async () => {
      expect((await root.post('sys/auth/userpass', { type: 'userpass', description: 'people' })).status).toBe(
        204,
      );
      const list = await root.get('sys/auth');
      const entry = list.body.data['userpass/'];
      expect(entry).toMatchObject({ type: 'userpass', description: 'people' });
      userpassAccessor = entry.accessor;
      expect(userpassAccessor).toMatch(/^auth_userpass_/);
    });

    it('refuses a path in use and an unknown method type', async () => {
      const again = await root.post('sys/auth/userpass', { type: 'userpass' });
      expect(again.status).toBe(400);
      expect(again.body.errors[0]).toContain('path is already in use');
      expect((await root.post(`sys/auth/${uniq('x')}`, { type: 'no-such-method' })).status).toBe(400);
    });

    it('disables an auth method (204): its login path has no handler any more', async () => {
      const path = uniq('up');
      expect((await root.post(`sys/auth/${path}`, { type: 'userpass' })).status).toBe(204);
      expect((await root.put(`auth/${path}/users/bob`, { password: 'pw' })).status).toBe(204);
      expect((await root.delete(`sys/auth/${path}`)).status).toBe(204);
      expect((await root.get('sys/auth')).body.data[`${path}/`]).toBeUndefined();
      // Without a token an unknown path is refused before routing (as in Vault); with one it has no handler.
      expect((await target.anon.post(`auth/${path}/login/bob`, { password: 'pw' })).status).toBe(403);
      const gone = await root.post(`auth/${path}/login/bob`, { password: 'pw' });
      expect(gone.status).toBe(404);
      expect(gone.body.errors[0]).toContain('no handler for route');
    });
  });

  describe('userpass', () => {
    it('creates a user (204), reads it without the password, lists it', async () => {
      const res = await root.put(`auth/userpass/users/${user}`, {
        password,
        token_policies: [reader],
        token_ttl: '1h',
      });
      expect(res.status).toBe(204);
      const read = await root.get(`auth/userpass/users/${user}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ token_policies: [reader], token_ttl: 3600 });
      expect(JSON.stringify(read.body)).not.toContain(password);
      expect((await root.list('auth/userpass/users')).body.data.keys).toContain(user);
    });

    it('needs a password to create a user', async () => {
      expect(
        (await root.put(`auth/userpass/users/${uniq('nopass')}`, { token_policies: ['x'] })).status,
      ).toBe(400);
    });

    it('rejects a wrong password and an unknown user with 400 "invalid username or password"', async () => {
      for (const res of [await login(user, 'wrong'), await login(uniq('nobody'), password)]) {
        expect(res.status).toBe(400);
        expect(res.body.errors[0]).toContain('invalid username or password');
      }
    });

    it('logs in: a token with the user’s policies, its metadata and an entity', async () => {
      const res = await login(user, password);
      expect(res.status).toBe(200);
      const auth = res.body.auth;
      expect(auth.policies).toEqual(expect.arrayContaining(['default', reader]));
      expect(auth.metadata).toEqual({ username: user });
      expect(auth.lease_duration).toBe(3600);
      expect(auth.entity_id).toEqual(expect.any(String));
      expect(auth.entity_id).not.toBe('');
      const t = target.anon.withToken(auth.client_token);
      expect((await t.get('secret/data/userpass/doc')).status).toBe(200);
      expect((await t.get('secret/data/entity/doc')).status).toBe(403);
      expect((await t.get('auth/token/lookup-self')).body.data).toMatchObject({
        path: `auth/userpass/login/${user}`,
        entity_id: auth.entity_id,
        meta: { username: user },
      });
    });

    it('keeps one entity per user across logins, with the userpass alias', async () => {
      const first = (await login(user, password)).body.auth.entity_id;
      const second = (await login(user, password)).body.auth.entity_id;
      expect(second).toBe(first);
      const entity = await root.get(`identity/entity/id/${first}`);
      expect(entity.status).toBe(200);
      expect(entity.body.data.aliases).toEqual([
        expect.objectContaining({ name: user, mount_accessor: userpassAccessor, canonical_id: first }),
      ]);
    });

    it('changes the password and the policies of a user', async () => {
      expect((await root.post(`auth/userpass/users/${user}/password`, { password: 'new-pass' })).status).toBe(
        204,
      );
      expect((await login(user, password)).status).toBe(400);
      expect((await login(user, 'new-pass')).status).toBe(200);
      expect(
        (await root.post(`auth/userpass/users/${user}/policies`, { token_policies: ['default'] })).status,
      ).toBe(204);
      const t = target.anon.withToken((await login(user, 'new-pass')).body.auth.client_token);
      expect((await t.get('secret/data/userpass/doc')).status).toBe(403);
      await root.post(`auth/userpass/users/${user}/policies`, { token_policies: [reader] });
      await root.post(`auth/userpass/users/${user}/password`, { password });
    });

    it('deletes a user (204)', async () => {
      const name = uniq('temp');
      await root.put(`auth/userpass/users/${name}`, { password: 'pw' });
      expect((await root.delete(`auth/userpass/users/${name}`)).status).toBe(204);
      expect((await root.get(`auth/userpass/users/${name}`)).status).toBe(404);
      expect((await login(name, 'pw')).status).toBe(400);
    });
  });

  describe('identity', () => {
    it('creates an entity and reads it by id and by name', async () => {
      const name = uniq('svc');
      const created = await root.post('identity/entity', {
        name,
        metadata: { team: 'blue' },
        policies: ['default'],
      });
      expect(created.status).toBe(200);
      const id = created.body.data.id;
      expect(id).toEqual(expect.any(String));
      const byId = await root.get(`identity/entity/id/${id}`);
      expect(byId.body.data).toMatchObject({ id, name, metadata: { team: 'blue' }, policies: ['default'] });
      const byName = await root.get(`identity/entity/name/${name}`);
      expect(byName.body.data.id).toBe(id);
      expect((await root.list('identity/entity/id')).body.data.keys).toContain(id);
      expect((await root.list('identity/entity/name')).body.data.keys).toContain(name);
    });

    it('updates an entity by id', async () => {
      const created = await root.post('identity/entity', { name: uniq('upd') });
      const id = created.body.data.id;
      const res = await root.post(`identity/entity/id/${id}`, { metadata: { env: 'prod' } });
      expect([200, 204]).toContain(res.status);
      expect((await root.get(`identity/entity/id/${id}`)).body.data.metadata).toEqual({ env: 'prod' });
    });

    it('creates an alias for an entity', async () => {
      const entity = (await root.post('identity/entity', { name: uniq('aliased') })).body.data.id;
      const aliasName = uniq('bob');
      const res = await root.post('identity/entity-alias', {
        name: aliasName,
        canonical_id: entity,
        mount_accessor: userpassAccessor,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ canonical_id: entity });
      const alias = await root.get(`identity/entity-alias/id/${res.body.data.id}`);
      expect(alias.body.data).toMatchObject({
        name: aliasName,
        canonical_id: entity,
        mount_accessor: userpassAccessor,
      });
      expect((await root.get(`identity/entity/id/${entity}`)).body.data.aliases).toHaveLength(1);
    });

    it('rejects an alias for an unknown mount accessor or entity', async () => {
      const entity = (await root.post('identity/entity', { name: uniq('e') })).body.data.id;
      expect(
        (
          await root.post('identity/entity-alias', {
            name: 'x',
            canonical_id: entity,
            mount_accessor: 'auth_nope_1',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await root.post('identity/entity-alias', {
            name: 'x',
            canonical_id: 'no-such-id',
            mount_accessor: userpassAccessor,
          })
        ).status,
      ).toBe(400);
    });

    it('applies the entity’s policies to its tokens, from the next request on', async () => {
      const entityPolicy = uniq('entity-policy');
      await root.put(`sys/policies/acl/${entityPolicy}`, {
        policy: 'path "secret/data/entity/*" { capabilities = ["read"] }',
      });
      const auth = (await login(user, password)).body.auth;
      const t = target.anon.withToken(auth.client_token);
      expect((await t.get('secret/data/entity/doc')).status).toBe(403);
      expect(
        (await root.post(`identity/entity/id/${auth.entity_id}`, { policies: [entityPolicy] })).status,
      ).toBeLessThan(300);
      expect((await t.get('secret/data/entity/doc')).status).toBe(200);
      const lookup = await t.get('auth/token/lookup-self');
      expect(lookup.body.data.identity_policies).toEqual([entityPolicy]);
      await root.post(`identity/entity/id/${auth.entity_id}`, { policies: [] });
      expect((await t.get('secret/data/entity/doc')).status).toBe(403);
    });
  });
});
