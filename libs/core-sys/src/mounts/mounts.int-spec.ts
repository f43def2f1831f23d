import {
  coreMountTable,
  invalidation,
  mountDisabled,
  sysContracts,
  type Invalidation,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness } from '../test-support/core-sys-harness';
import { MountsService } from './mounts.service';

describe('mounts and auth methods (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let invalidations: Invalidation[];
  let disabled: unknown[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('mounts');
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    invalidations = await h.record(invalidation);
    disabled = await h.record(mountDisabled);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const c = sysContracts;
  const mountsInvalidations = () => invalidations.filter((i) => i.kind === 'mounts').length;
  const enable = (path: string, body: Record<string, unknown>) =>
    h.sys(c.mountEnable, { operation: 'update', path: `mounts/${path}`, params: { path }, body });

  it('lists the built-in mounts with Vault shapes, at top level and under data', async () => {
    const res = await h.sys(c.mountsList, { operation: 'read', path: 'mounts' });
    expect(res.kind).toBe('injected');
    const data = res.data as Record<string, Record<string, unknown>>;
    expect(Object.keys(data).sort()).toEqual(['cubbyhole/', 'identity/', 'sys/']);
    expect(data['cubbyhole/']).toMatchObject({
      type: 'cubbyhole',
      description: 'per-token private secret storage',
      accessor: expect.stringMatching(/^cubbyhole_[0-9a-f]{8}$/),
      config: { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false },
      options: null,
      local: true,
      seal_wrap: false,
      external_entropy_access: false,
      uuid: expect.any(String),
      plugin_version: '',
      running_plugin_version: expect.any(String),
      running_sha256: '',
    });
  });

  it('enables a kv v2 engine, broadcasts, and routes it through the mount table', async () => {
    const before = mountsInvalidations();
    const revision = (await h.client.request(coreMountTable, {})).revision;
    const res = await enable('secret', { type: 'kv', description: 'app secrets', options: { version: '2' } });
    expect(res).toMatchObject({ kind: 'injected', data: null, warnings: [] });
    await waitFor(() => mountsInvalidations() > before, { message: 'mounts invalidation' });
    const table = await h.client.request(coreMountTable, {});
    expect(table.revision).toBeGreaterThan(revision);
    expect(table.mounts.find((m) => m.path === 'secret/')).toMatchObject({
      type: 'kv',
      table: 'secret',
      options: { version: '2' },
      description: 'app secrets',
    });
    const read = await h.sys(c.mountRead, {
      operation: 'read',
      path: 'mounts/secret',
      params: { path: 'secret' },
    });
    expect(read.data).toMatchObject({
      type: 'kv',
      options: { version: '2' },
      deprecation_status: 'supported',
    });
  });

  it('refuses used, overlapping, reserved paths and unknown types with Vault texts', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['secret', { type: 'kv' }, 'path is already in use at secret/'],
      ['secret/team', { type: 'kv' }, 'path is already in use at secret/'],
      ['sys/x', { type: 'kv' }, 'cannot mount "sys/x/"'],
      ['cubbyhole', { type: 'kv' }, 'cannot mount "cubbyhole/"'],
      ['other', { type: 'foo' }, 'plugin not found in the catalog: foo'],
      ['other', {}, 'backend type must be specified as a string'],
    ];
    for (const [path, body, message] of cases) {
      expect(await h.failure(enable(path, body))).toMatchObject({ code: 'invalid_request', message });
    }
  });

  it('tunes a mount and reads the effective TTLs', async () => {
    const tuneRead = () =>
      h.sys(c.mountTuneRead, { operation: 'read', path: 'mounts/secret/tune', params: { path: 'secret' } });
    expect((await tuneRead()).data).toMatchObject({
      default_lease_ttl: 2764800,
      max_lease_ttl: 2764800,
      force_no_cache: false,
    });
    await h.sys(c.mountTune, {
      operation: 'update',
      path: 'mounts/secret/tune',
      params: { path: 'secret' },
      body: { default_lease_ttl: '1h', max_lease_ttl: 7200, description: 'tuned' },
    });
    expect((await tuneRead()).data).toMatchObject({
      default_lease_ttl: 3600,
      max_lease_ttl: 7200,
      description: 'tuned',
    });
  });

  it('answers the kv version lookup of sys/internal/ui/mounts and hides mounts without access', async () => {
    const ui = await h.sys(c.uiMount, {
      operation: 'read',
      path: 'internal/ui/mounts/secret/foo',
      params: { path: 'secret/foo' },
    });
    expect(ui.data).toMatchObject({ path: 'secret/', type: 'kv', options: { version: '2' } });
    const all = await h.sys(c.uiMounts, { operation: 'read', path: 'internal/ui/mounts' });
    expect(Object.keys((all.data as { secret: object }).secret)).toContain('secret/');
    expect(Object.keys((all.data as { auth: object }).auth)).toContain('token/');
    const nobody = { root: false, policies: ['default'] };
    const denied = await h.failure(
      h.sys(
        c.uiMount,
        { operation: 'read', path: 'internal/ui/mounts/secret/foo', params: { path: 'secret/foo' } },
        nobody,
      ),
    );
    expect(denied).toMatchObject({ code: 'permission_denied' });
    expect(denied.message).toContain('preflight capability check returned 403');
  });

  it('enables, tunes and disables an auth method', async () => {
    const auth = (op: 'update' | 'delete', path: string, body: Record<string, unknown> = {}) =>
      h.sys(op === 'update' ? c.authEnable : c.authDisable, {
        operation: op,
        path: `auth/${path}`,
        params: { path },
        body,
      });
    await auth('update', 'userpass', { type: 'userpass', description: 'people' });
    const list = (await h.sys(c.authList, { operation: 'read', path: 'auth' })).data as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(list).sort()).toEqual(['token/', 'userpass/']);
    expect(list['userpass/']).toMatchObject({
      type: 'userpass',
      description: 'people',
      accessor: expect.stringMatching(/^auth_userpass_[0-9a-f]{8}$/),
      config: { token_type: 'default-service' },
    });
    const byPath = await h.replica(0).app.get(MountsService).authMountByPath('userpass');
    expect(byPath).toMatchObject({ path: 'auth/userpass/', type: 'userpass', table: 'auth' });
    const byAccessor = await h
      .replica(0)
      .app.get(MountsService)
      .authMountByAccessor(byPath?.accessor ?? '');
    expect(byAccessor?.uuid).toBe(byPath?.uuid);
    expect(await h.failure(auth('update', 'userpass', { type: 'userpass' }))).toMatchObject({
      message: 'path is already in use at userpass/',
    });
    await h.sys(c.authTune, {
      operation: 'update',
      path: 'auth/userpass/tune',
      params: { path: 'userpass' },
      body: { default_lease_ttl: '30m' },
    });
    const tuned = await h.sys(c.authTuneRead, {
      operation: 'read',
      path: 'auth/userpass/tune',
      params: { path: 'userpass' },
    });
    expect(tuned.data).toMatchObject({ default_lease_ttl: 1800, token_type: 'default-service' });
    await auth('delete', 'userpass');
    await waitFor(() => disabled.some((d) => (d as { type: string }).type === 'userpass'), {
      message: 'auth disabled',
    });
    expect(await h.failure(auth('delete', 'token'))).toMatchObject({
      message: 'token credential backend cannot be disabled',
    });
  });

  it('disables a secrets engine and broadcasts mountDisabled for the data purge', async () => {
    const entry = (await h.client.request(coreMountTable, {})).mounts.find((m) => m.path === 'secret/');
    const res = await h.sys(c.mountDisable, {
      operation: 'delete',
      path: 'mounts/secret',
      params: { path: 'secret' },
    });
    expect(res).toMatchObject({ kind: 'injected', data: null });
    await waitFor(() => disabled.some((d) => (d as { path: string }).path === 'secret/'), {
      message: 'mountDisabled',
    });
    expect(disabled).toContainEqual({ uuid: entry?.uuid, type: 'kv', path: 'secret/' });
    expect((await h.client.request(coreMountTable, {})).mounts.map((m) => m.path)).not.toContain('secret/');
    // disabling what is not mounted succeeds quietly; protected mounts cannot go
    await h.sys(c.mountDisable, { operation: 'delete', path: 'mounts/secret', params: { path: 'secret' } });
    expect(
      await h.failure(
        h.sys(c.mountDisable, { operation: 'delete', path: 'mounts/sys', params: { path: 'sys' } }),
      ),
    ).toMatchObject({
      message: 'cannot unmount "sys/"',
    });
  });

  it('reads null fields as not set, as hvac sends them (enable, auth enable, tune)', async () => {
    const nulls = { description: null, config: null, options: null, local: null, seal_wrap: null };
    expect(await enable('hvac', { type: 'kv', ...nulls })).toMatchObject({ kind: 'injected', data: null });
    const read = await h.sys(c.mountRead, {
      operation: 'read',
      path: 'mounts/hvac',
      params: { path: 'hvac' },
    });
    expect(read.data).toMatchObject({ type: 'kv', description: '', options: { version: '1' }, local: false });
    const authBody = { type: 'userpass', ...nulls, external_entropy_access: null };
    await h.sys(c.authEnable, {
      operation: 'update',
      path: 'auth/hvac',
      params: { path: 'hvac' },
      body: authBody,
    });
    const tuneNulls = {
      default_lease_ttl: null,
      max_lease_ttl: null,
      description: null,
      options: null,
      listing_visibility: null,
      token_type: null,
    };
    const tune = (contract: typeof c.mountTune, path: string) =>
      h.sys(contract, { operation: 'update', path: `${path}/tune`, params: { path }, body: tuneNulls });
    expect(await tune(c.mountTune, 'hvac')).toMatchObject({ kind: 'injected' });
    expect(await tune(c.authTune, 'hvac')).toMatchObject({ kind: 'injected' });
    const config = {
      default_lease_ttl: null,
      max_lease_ttl: '1h',
      force_no_cache: null,
      listing_visibility: null,
    };
    await enable('hvac-config', { type: 'kv', config });
    const tuned = await h.sys(c.mountTuneRead, {
      operation: 'read',
      path: 'mounts/hvac-config/tune',
      params: { path: 'hvac-config' },
    });
    expect(tuned.data).toMatchObject({ max_lease_ttl: 3600, force_no_cache: false });
  });
});
