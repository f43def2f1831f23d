import { startDevServer, uniq, type DevServer } from '../support';
import { HvacDriver } from '../support/clients';

jest.setTimeout(60_000);

/**
 * hvac (Python, Debian's python3-hvac), unchanged, against the dev server, called as its users
 * call it: the typed API (`client.sys…`, `client.secrets…`, `client.auth…`) and the legacy
 * `Client` methods still in wide use. hvac sends `null` for every unset argument of a mount
 * and of the legacy token methods; Vault reads `null` as "not set".
 */
describe('dev: the hvac client', () => {
  let dev: DevServer;
  let hvac: HvacDriver;

  beforeAll(async () => {
    dev = await startDevServer();
    hvac = HvacDriver.start(dev.baseUrl, dev.rootToken);
  }, 120_000);
  afterAll(async () => {
    await hvac?.stop();
    await dev?.stop();
  });

  describe('mounts', () => {
    it('enables a kv v2 engine with the unset fields as null, lists, reads its tuning and disables it', async () => {
      const path = uniq('hvac-kv');
      const enabled = await hvac.call('sys.enable_secrets_engine', {
        args: ['kv'],
        kwargs: { path, options: { version: '2' } },
      });
      expect(enabled.status_code).toBe(204);
      const mounts = await hvac.call('sys.list_mounted_secrets_engines');
      expect(mounts.data[`${path}/`]).toMatchObject({ type: 'kv', options: { version: '2' } });
      expect(await hvac.call('sys.retrieve_mount_option', { args: [path, 'version'] })).toBe('2');
      const tuning = await hvac.call('sys.read_mount_configuration', { args: [path] });
      expect(tuning.data).toMatchObject({ default_lease_ttl: 2764800, max_lease_ttl: 2764800 });
      expect((await hvac.call('sys.disable_secrets_engine', { args: [path] })).status_code).toBe(204);
      expect((await hvac.call('sys.list_mounted_secrets_engines')).data).not.toHaveProperty(`${path}/`);
    });

    it('enables a kv v1 engine with a description and config given, and tunes it', async () => {
      const path = uniq('hvac-v1');
      await hvac.call('sys.enable_secrets_engine', {
        args: ['kv'],
        kwargs: { path, description: 'team secrets', config: { default_lease_ttl: '1h' }, options: {} },
      });
      const tuned = await hvac.call('sys.tune_mount_configuration', {
        args: [path],
        kwargs: { max_lease_ttl: '2h' },
      });
      expect(tuned.status_code).toBe(204);
      const tuning = await hvac.call('sys.read_mount_configuration', { args: [path] });
      expect(tuning.data).toMatchObject({
        default_lease_ttl: 3600,
        max_lease_ttl: 7200,
        description: 'team secrets',
      });
      await hvac.call('sys.disable_secrets_engine', { args: [path] });
    });
  });

  describe('kv', () => {
    it('writes, reads, lists and deletes kv v1 secrets', async () => {
      // enabled without hvac, so these calls do not depend on the mount call above
      const mount = uniq('v1');
      expect(
        (await dev.client.post(`sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } })).status,
      ).toBe(204);
      const kv = (call: string, args: unknown[], kwargs: Record<string, unknown> = {}) =>
        hvac.call(`secrets.kv.v1.${call}`, { args, kwargs: { mount_point: mount, ...kwargs } });
      expect(
        (await kv('create_or_update_secret', ['team/one', { user: 'admin', note: 'ü' }])).status_code,
      ).toBe(204);
      await kv('create_or_update_secret', ['team/nested/two', { v: '2' }]);
      const read = await kv('read_secret', ['team/one']);
      expect(read.data).toEqual({ user: 'admin', note: 'ü' });
      expect(read.lease_duration).toBe(2764800);
      expect((await kv('list_secrets', ['team'])).data.keys).toEqual(['nested/', 'one']);
      expect((await kv('delete_secret', ['team/one'])).status_code).toBe(204);
      expect(
        await hvac.failure('secrets.kv.v1.read_secret', {
          args: ['team/one'],
          kwargs: { mount_point: mount },
        }),
      ).toMatchObject({ type: 'InvalidPath' });
    });

    it('writes, reads, patches, lists, deletes, undeletes and destroys kv v2 secrets', async () => {
      const app = uniq('hvac');
      const kv = (call: string, args: unknown[], kwargs: Record<string, unknown> = {}) =>
        hvac.call(`secrets.kv.v2.${call}`, { args, kwargs: { mount_point: 'secret', ...kwargs } });
      const written = await kv('create_or_update_secret', [`${app}/db`, { user: 'admin', password: 'p@ss' }]);
      expect(written.data).toMatchObject({ version: 1, destroyed: false, deletion_time: '' });
      expect(
        (await kv('create_or_update_secret', [`${app}/db`, { user: 'root' }], { cas: 1 })).data.version,
      ).toBe(2);
      const cas = await hvac.failure('secrets.kv.v2.create_or_update_secret', {
        args: [`${app}/db`, { user: 'late' }],
        kwargs: { cas: 1, mount_point: 'secret' },
      });
      expect(cas).toMatchObject({ type: 'InvalidRequest' });
      expect(cas.message).toContain('check-and-set parameter did not match the current version');

      const latest = await kv('read_secret_version', [`${app}/db`]);
      expect(latest.data.data).toEqual({ user: 'root' });
      expect(latest.data.metadata.version).toBe(2);
      expect((await kv('read_secret_version', [`${app}/db`], { version: 1 })).data.data).toEqual({
        user: 'admin',
        password: 'p@ss',
      });
      // hvac's patch reads the secret and writes the merge back, with cas
      expect((await kv('patch', [`${app}/db`, { port: '5432' }])).data.version).toBe(3);
      expect((await kv('read_secret_version', [`${app}/db`])).data.data).toEqual({
        user: 'root',
        port: '5432',
      });

      await kv('create_or_update_secret', [`${app}/cache`, { url: 'redis://x' }]);
      expect((await kv('list_secrets', [app])).data.keys).toEqual(['cache', 'db']);
      const metadata = await kv('read_secret_metadata', [`${app}/db`]);
      expect(metadata.data).toMatchObject({ current_version: 3, oldest_version: 0 });
      expect(Object.keys(metadata.data.versions)).toEqual(['1', '2', '3']);

      expect((await kv('delete_latest_version_of_secret', [`${app}/db`])).status_code).toBe(204);
      expect(await hvac.failure('secrets.kv.v2.read_secret_version', { args: [`${app}/db`] })).toMatchObject({
        type: 'InvalidPath',
      });
      await kv('undelete_secret_versions', [`${app}/db`, [3]]);
      expect((await kv('read_secret_version', [`${app}/db`])).data.data.port).toBe('5432');
      await kv('destroy_secret_versions', [`${app}/db`, [1]]);
      expect((await kv('read_secret_metadata', [`${app}/db`])).data.versions['1'].destroyed).toBe(true);

      await kv('update_metadata', [`${app}/db`], { max_versions: 5 });
      expect((await kv('read_secret_metadata', [`${app}/db`])).data.max_versions).toBe(5);
      await kv('configure', [], { max_versions: 10 });
      expect((await kv('read_configuration', [])).data).toMatchObject({
        max_versions: 10,
        cas_required: false,
      });
      await kv('configure', [], { max_versions: 0 });

      expect((await kv('delete_metadata_and_all_versions', [`${app}/db`])).status_code).toBe(204);
      expect((await kv('list_secrets', [app])).data.keys).toEqual(['cache']);
    });
  });

  describe('policies', () => {
    it('writes, reads, lists and deletes a policy', async () => {
      const name = uniq('hvac-readers');
      const rules = 'path "secret/data/shared/*" {\n  capabilities = ["read", "list"]\n}';
      expect((await hvac.call('sys.create_or_update_policy', { args: [name, rules] })).status_code).toBe(204);
      const read = await hvac.call('sys.read_policy', { args: [name] });
      expect(read.data).toEqual({ name, rules });
      expect((await hvac.call('sys.list_policies')).data.policies).toEqual(
        expect.arrayContaining(['default', 'root', name]),
      );
      // the legacy method parses the HCL the way hvac does
      expect(await hvac.call('get_policy', { args: [name] })).toBe(rules);
      expect((await hvac.call('sys.delete_policy', { args: [name] })).status_code).toBe(204);
      expect(await hvac.failure('sys.read_policy', { args: [name] })).toMatchObject({ type: 'InvalidPath' });
    });

    it('refuses an invalid legacy policy value such as "constructor" with InvalidRequest', async () => {
      const failure = await hvac.failure('sys.create_or_update_policy', {
        args: [uniq('hvac-bad'), 'path "secret/*" {\n  policy = "constructor"\n}'],
      });
      expect(failure.type).toBe('InvalidRequest');
      expect(failure.message).toContain(
        'failed to parse policy: path "secret/*": invalid policy "constructor"',
      );
    });

    it('answers capabilities-self for a limited token', async () => {
      const name = uniq('hvac-caps');
      await hvac.call('sys.create_or_update_policy', {
        args: [name, 'path "secret/data/caps/*" { capabilities = ["read", "list"] }'],
      });
      const token = (await hvac.call('auth.token.create', { kwargs: { policies: [name] } })).auth
        .client_token;
      const caps = await hvac.call('sys.get_capabilities', {
        args: [['secret/data/caps/x', 'sys/mounts']],
        token,
      });
      expect(caps.data).toMatchObject({ 'secret/data/caps/x': ['list', 'read'], 'sys/mounts': ['deny'] });
    });

    it('answers capabilities for paths named like Object.prototype members (was a 500)', async () => {
      const caps = await hvac.call('sys.get_capabilities', {
        args: [['constructor', 'toString', '__proto__']],
      });
      expect(caps.data).toMatchObject({ constructor: ['root'], toString: ['root'] });
      const one = await hvac.call('sys.get_capabilities', { args: [['__proto__']] });
      expect(one.data.capabilities).toEqual(['root']);
    });
  });

  describe('tokens', () => {
    it('creates a token with ttl, policies and meta, looks it up, renews it and revokes it', async () => {
      const created = await hvac.call('auth.token.create', {
        kwargs: { policies: ['default'], ttl: '1h', meta: { app: 'billing' }, display_name: 'ci bot' },
      });
      const { client_token: token, accessor } = created.auth;
      expect(created.auth).toMatchObject({
        policies: ['default'],
        metadata: { app: 'billing' },
        lease_duration: 3600,
        renewable: true,
      });
      const looked = await hvac.call('auth.token.lookup', { args: [token] });
      expect(looked.data).toMatchObject({
        accessor,
        display_name: 'token-ci-bot',
        meta: { app: 'billing' },
        policies: ['default'],
        ttl: expect.any(Number),
      });
      expect((await hvac.call('auth.token.lookup_accessor', { args: [accessor] })).data.id).toBe('');
      const self = await hvac.call('auth.token.lookup_self', { token });
      expect(self.data).toMatchObject({ id: token, accessor });
      const renewed = await hvac.call('auth.token.renew_self', { kwargs: { increment: '30m' }, token });
      expect(renewed.auth).toMatchObject({ client_token: token, lease_duration: 1800 });
      expect(await hvac.call('is_authenticated', { token })).toBe(true);
      expect((await hvac.call('auth.token.revoke', { args: [token] })).status_code).toBe(204);
      expect(await hvac.call('is_authenticated', { token })).toBe(false);
    });

    it('refuses to look up a revoked or unknown token with Forbidden "bad token"', async () => {
      const token = (await hvac.call('auth.token.create', { kwargs: { ttl: '10m' } })).auth.client_token;
      await hvac.call('auth.token.revoke_self', { token });
      for (const gone of [token, 'hvs.never-issued']) {
        const failure = await hvac.failure('auth.token.lookup', { args: [gone] });
        expect(failure.type).toBe('Forbidden');
        expect(failure.message).toContain('bad token');
      }
    });

    it('limits a token with num_uses', async () => {
      const token = (await hvac.call('auth.token.create', { kwargs: { num_uses: 2 } })).auth.client_token;
      expect((await hvac.call('auth.token.lookup_self', { token })).data.num_uses).toBe(1);
      expect((await hvac.call('auth.token.lookup_self', { token })).data.num_uses).toBe(0);
      expect(await hvac.failure('auth.token.lookup_self', { token })).toMatchObject({ type: 'Forbidden' });
    });

    it('creates tokens with the legacy create_token, which sends null for every unset field', async () => {
      const created = await hvac.call('create_token', { kwargs: { policies: ['default'], ttl: '1h' } });
      expect(created.auth).toMatchObject({ policies: ['default'], lease_duration: 3600, renewable: true });
      const plain = await hvac.call('create_token');
      expect(plain.auth.policies).toEqual(['root']);
      const orphan = await hvac.call('create_token', {
        kwargs: { orphan: true, ttl: '5m', meta: { a: 'b' } },
      });
      expect((await hvac.call('lookup_token', { args: [orphan.auth.client_token] })).data).toMatchObject({
        orphan: true,
        meta: { a: 'b' },
      });
    });

    it('renews with the legacy renew_self_token and renew_token, which send increment null', async () => {
      const { client_token: token } = (await hvac.call('auth.token.create', { kwargs: { ttl: '1h' } })).auth;
      expect((await hvac.call('renew_self_token', { token })).auth).toMatchObject({
        client_token: token,
        lease_duration: 3600,
      });
      expect((await hvac.call('renew_token', { args: [token] })).auth.lease_duration).toBe(3600);
    });
  });

  describe('userpass', () => {
    it('enables userpass, writes a user, logs in and uses the login token', async () => {
      const path = uniq('hvac-up');
      expect(
        (await hvac.call('sys.enable_auth_method', { args: ['userpass'], kwargs: { path } })).status_code,
      ).toBe(204);
      expect((await hvac.call('sys.list_auth_methods')).data[`${path}/`]).toMatchObject({ type: 'userpass' });
      await hvac.call('auth.userpass.create_or_update_user', {
        args: ['alice', 's3cret'],
        kwargs: { policies: ['default'], mount_point: path },
      });
      expect(
        (await hvac.call('auth.userpass.list_user', { kwargs: { mount_point: path } })).data.keys,
      ).toEqual(['alice']);
      const user = await hvac.call('auth.userpass.read_user', {
        args: ['alice'],
        kwargs: { mount_point: path },
      });
      expect(user.data).toMatchObject({ token_policies: ['default'] });
      expect(user.data).not.toHaveProperty('password');

      const login = await hvac.call('auth.userpass.login', {
        args: ['alice', 's3cret'],
        kwargs: { use_token: false, mount_point: path },
      });
      expect(login.auth).toMatchObject({
        policies: ['default'],
        metadata: { username: 'alice' },
        entity_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const self = await hvac.call('auth.token.lookup_self', { token: login.auth.client_token });
      expect(self.data).toMatchObject({ path: `auth/${path}/login/alice`, display_name: `${path}-alice` });
      expect(
        await hvac.failure('auth.userpass.login', {
          args: ['alice', 'wrong'],
          kwargs: { mount_point: path },
        }),
      ).toMatchObject({ type: 'InvalidRequest' });
      expect((await hvac.call('sys.disable_auth_method', { args: [path] })).status_code).toBe(204);
    });
  });

  describe('identity', () => {
    it('creates an entity with metadata and policies and reads it by id and by name', async () => {
      const name = uniq('hvac-entity');
      const created = await hvac.call('secrets.identity.create_or_update_entity', {
        kwargs: { name, metadata: { team: 'payments' }, policies: ['default'] },
      });
      const id: string = created.data.id;
      expect(created.data).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name });
      const byId = await hvac.call('secrets.identity.read_entity', { args: [id] });
      expect(byId.data).toMatchObject({
        id,
        name,
        metadata: { team: 'payments' },
        policies: ['default'],
        disabled: false,
      });
      expect((await hvac.call('secrets.identity.read_entity_by_name', { args: [name] })).data.id).toBe(id);
      expect((await hvac.call('secrets.identity.list_entities')).data.keys).toContain(id);
      await hvac.call('secrets.identity.update_entity', { args: [id], kwargs: { name, disabled: true } });
      expect((await hvac.call('secrets.identity.read_entity', { args: [id] })).data.disabled).toBe(true);
      expect((await hvac.call('secrets.identity.delete_entity', { args: [id] })).status_code).toBe(204);
    });

    it('nests groups, looks one up, and merges entities', async () => {
      const entity = async (name: string): Promise<string> =>
        (await hvac.call('secrets.identity.create_or_update_entity', { kwargs: { name } })).data.id;
      const [a, b] = [await entity(uniq('hvac-a')), await entity(uniq('hvac-b'))];
      const inner = uniq('hvac-inner');
      const created = await hvac.call('secrets.identity.create_or_update_group', {
        kwargs: { name: inner, policies: ['default'], member_entity_ids: [a] },
      });
      const innerId: string = created.data.id;
      const outer = await hvac.call('secrets.identity.create_or_update_group', {
        kwargs: { name: uniq('hvac-outer'), member_group_ids: [innerId] },
      });
      const read = await hvac.call('secrets.identity.read_group', { args: [innerId] });
      expect(read.data).toMatchObject({
        name: inner,
        member_entity_ids: [a],
        parent_group_ids: [outer.data.id],
      });
      expect((await hvac.call('secrets.identity.lookup_group', { kwargs: { name: inner } })).data.id).toBe(
        innerId,
      );
      expect((await hvac.call('secrets.identity.list_groups')).data.keys).toContain(innerId);
      const merged = await hvac.call('secrets.identity.merge_entities', {
        kwargs: { from_entity_ids: [a], to_entity_id: b },
      });
      expect(merged.status_code).toBe(204);
      expect(
        (await hvac.call('secrets.identity.read_group', { args: [innerId] })).data.member_entity_ids,
      ).toEqual([b]);
      expect((await hvac.call('secrets.identity.read_entity', { args: [b] })).data).toMatchObject({
        merged_entity_ids: [a],
        direct_group_ids: [innerId],
        inherited_group_ids: [outer.data.id],
      });
    });
  });
});
