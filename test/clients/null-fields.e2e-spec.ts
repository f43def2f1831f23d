import { startDevServer, uniq, type DevServer } from '../support';

jest.setTimeout(60_000);

/**
 * What Vault clients send that Vault reads leniently (found with hvac, hashi-vault-js and
 * friends): `null` for a field means "not set" (Vault's field decoding gives the zero value), so
 * a body with nulls must do exactly what the same body without those fields does; and keys the
 * caller chooses (metadata, meta) are plain keys even when named like Object.prototype members.
 */
describe('dev: request fields as Vault clients send them', () => {
  let dev: DevServer;

  beforeAll(async () => {
    dev = await startDevServer();
  }, 120_000);
  afterAll(() => dev?.stop());

  /** A body without the token-specific fields, to compare two answers. */
  const withoutIds = (auth: Record<string, unknown>) => {
    const { client_token: _t, accessor: _a, ...rest } = auth;
    return rest;
  };

  describe('null means "not set"', () => {
    it('sys/mounts: hvac enables a mount with every unset field as null', async () => {
      const path = uniq('null-kv');
      const res = await dev.client.post(`sys/mounts/${path}`, {
        type: 'kv',
        description: null,
        config: null,
        options: { version: '2' },
        plugin_name: null,
        local: false,
        seal_wrap: false,
      });
      expect(res.status).toBe(204);
      const mounts = await dev.client.get('sys/mounts');
      expect(mounts.body.data[`${path}/`]).toMatchObject({
        type: 'kv',
        description: '',
        options: { version: '2' },
      });
      const allNull = uniq('null-all');
      const bare = await dev.client.post(`sys/mounts/${allNull}`, {
        type: 'kv',
        description: null,
        config: null,
        options: null,
        plugin_name: null,
        local: null,
        seal_wrap: null,
        external_entropy_access: null,
      });
      expect(bare.status).toBe(204);
    });

    it('sys/auth: enables an auth method with the unset fields as null', async () => {
      const path = uniq('null-up');
      const res = await dev.client.post(`sys/auth/${path}`, {
        type: 'userpass',
        description: null,
        config: null,
        local: null,
        plugin_name: null,
        seal_wrap: null,
      });
      expect(res.status).toBe(204);
      expect((await dev.client.get('sys/auth')).body.data[`${path}/`]).toMatchObject({ type: 'userpass' });
    });

    it('auth/token/create: null ttl, policies, meta and the rest create the same token as leaving them out', async () => {
      const nulls = {
        id: null,
        policies: null,
        meta: null,
        no_parent: null,
        no_default_policy: null,
        renewable: null,
        ttl: null,
        explicit_max_ttl: null,
        display_name: null,
        num_uses: null,
        period: null,
        type: null,
      };
      const withNulls = await dev.client.post('auth/token/create', nulls);
      const without = await dev.client.post('auth/token/create', {});
      expect(withNulls.status).toBe(200);
      expect(withoutIds(withNulls.body.auth)).toEqual(withoutIds(without.body.auth));

      const some = await dev.client.post('auth/token/create', { ...nulls, policies: ['default'], ttl: '1h' });
      expect(some.status).toBe(200);
      expect(some.body.auth).toMatchObject({ policies: ['default'], lease_duration: 3600, renewable: true });
    });

    it('auth/token/renew-self and renew-accessor: increment null renews like no increment', async () => {
      const created = await dev.client.post('auth/token/create', { ttl: '1h', policies: ['default'] });
      const { client_token: token, accessor } = created.body.auth;
      const self = await dev.client.withToken(token).post('auth/token/renew-self', { increment: null });
      expect(self.status).toBe(200);
      expect(self.body.auth).toMatchObject({ client_token: token, lease_duration: 3600 });
      const byAccessor = await dev.client.post('auth/token/renew-accessor', { accessor, increment: null });
      expect(byAccessor.status).toBe(200);
      expect(byAccessor.body.auth).toMatchObject({ accessor, lease_duration: 3600 });
      const renew = await dev.client.post('auth/token/renew', { token, increment: null });
      expect(renew.status).toBe(200);
    });

    it('identity/entity: null metadata and policies create the same entity as leaving them out', async () => {
      const a = uniq('null-ent');
      const b = uniq('null-ent');
      const created = await dev.client.post('identity/entity', {
        name: a,
        metadata: null,
        policies: null,
        disabled: null,
      });
      expect(created.status).toBe(200);
      await dev.client.post('identity/entity', { name: b });
      const readA = (await dev.client.get(`identity/entity/name/${a}`)).body.data;
      const readB = (await dev.client.get(`identity/entity/name/${b}`)).body.data;
      expect({ metadata: readA.metadata, policies: readA.policies, disabled: readA.disabled }).toEqual({
        metadata: readB.metadata,
        policies: readB.policies,
        disabled: readB.disabled,
      });
    });

    it('sys/capabilities-self: paths null falls back to the deprecated path, as in Vault', async () => {
      const res = await dev.client.post('sys/capabilities-self', { paths: null, path: 'secret/data/x' });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ 'secret/data/x': ['root'], capabilities: ['root'] });
      const both = await dev.client.post('sys/capabilities-self', { paths: ['secret/data/y'], path: null });
      expect(both.body.data['secret/data/y']).toEqual(['root']);
    });
  });

  describe('keys chosen by the caller, named like Object.prototype members', () => {
    // raw JSON: an object literal with __proto__ would set the prototype, not a key
    const oddJson = '{"__proto__":"p","constructor":"c","toString":"t"}';

    it('token meta keeps every key', async () => {
      const res = await dev.client.post('auth/token/create', undefined, {
        raw: `{"meta":${oddJson}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.auth.metadata).sort()).toEqual(Object.keys(JSON.parse(oddJson)).sort());
    });

    it('entity metadata keeps every key', async () => {
      const name = uniq('proto-ent');
      const res = await dev.client.post('identity/entity', undefined, {
        raw: `{"name":"${name}","metadata":${oddJson}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      const read = await dev.client.get(`identity/entity/name/${name}`);
      // JSON.parse keeps "__proto__" as an own key
      const metadata = (JSON.parse(read.text) as { data: { metadata: Record<string, string> } }).data
        .metadata;
      expect(Object.entries(metadata).sort()).toEqual(Object.entries(JSON.parse(oddJson) as object).sort());
    });
  });
});
