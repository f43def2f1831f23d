import VaultClient from 'node-vault-client';
import { startDevServer, uniq, type DevServer } from '../support';

jest.setTimeout(60_000);

/** request-promise's rejection for a non-2xx answer. */
interface StatusCodeError {
  statusCode: number;
  error: { errors?: string[] } | undefined;
}

/**
 * node-vault-client, unchanged, against the dev server. It has read, list and write (no delete)
 * and authenticates a token with lookup-self before its first call; renewable tokens get a
 * renewal timer, so the clients here hold the root token or non-renewable tokens.
 */
describe('dev: the node-vault-client client', () => {
  let dev: DevServer;
  let vault: VaultClient;
  const clientFor = (token: string) =>
    new VaultClient({ api: { url: dev.baseUrl }, auth: { type: 'token', config: { token } }, logger: false });
  const failure = async (call: Promise<unknown>): Promise<StatusCodeError> => {
    try {
      await call;
    } catch (error) {
      return error as StatusCodeError;
    }
    throw new Error('the call succeeded, expected a failure');
  };

  beforeAll(async () => {
    dev = await startDevServer();
    vault = clientFor(dev.rootToken);
  }, 120_000);
  afterAll(() => dev?.stop());

  it('enables a kv mount, reads it in the mount table and tunes it', async () => {
    const path = uniq('nvc-kv');
    expect(
      await vault.write(`sys/mounts/${path}`, { type: 'kv', description: 'app', options: { version: '2' } }),
    ).toBeUndefined();
    const mounts = (await vault.read('sys/mounts')).getData();
    expect(mounts[`${path}/`]).toMatchObject({ type: 'kv', description: 'app', options: { version: '2' } });
    await vault.write(`sys/mounts/${path}/tune`, { default_lease_ttl: '1h' });
    expect((await vault.read(`sys/mounts/${path}/tune`)).getValue('default_lease_ttl')).toBe(3600);
  });

  it('writes, reads and lists kv v1 secrets', async () => {
    const mount = uniq('nvc-v1');
    await vault.write(`sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } });
    await vault.write(`${mount}/team/one`, { user: 'admin', ttl: '30m' });
    await vault.write(`${mount}/team/nested/two`, { user: 'ops' });
    const lease = await vault.read(`${mount}/team/one`);
    expect(lease.getData()).toEqual({ user: 'admin', ttl: '30m' });
    expect(lease.getValue('user')).toBe('admin');
    expect((await vault.list(`${mount}/team`)).getValue('keys')).toEqual(['nested/', 'one']);
    expect(await failure(vault.read(`${mount}/team/missing`))).toMatchObject({
      statusCode: 404,
      error: { errors: [] },
    });
  });

  it('writes, reads, lists, soft-deletes and destroys kv v2 versions', async () => {
    const app = uniq('nvc');
    const written = await vault.write(`secret/data/${app}/db`, { data: { password: 'one' } });
    expect(written.data).toMatchObject({ version: 1, destroyed: false });
    await vault.write(`secret/data/${app}/db`, { data: { password: 'two' }, options: { cas: 1 } });
    const cas = await failure(
      vault.write(`secret/data/${app}/db`, { data: { password: 'x' }, options: { cas: 1 } }),
    );
    expect(cas.statusCode).toBe(400);
    expect(cas.error?.errors?.[0]).toContain('check-and-set parameter did not match the current version');
    const read = await vault.read(`secret/data/${app}/db`);
    expect(read.getValue('data')).toEqual({ password: 'two' });
    expect(read.getValue('metadata')).toMatchObject({ version: 2 });
    expect((await vault.list(`secret/metadata/${app}`)).getValue('keys')).toEqual(['db']);
    await vault.write(`secret/delete/${app}/db`, { versions: [2] });
    const deleted = await failure(vault.read(`secret/data/${app}/db`));
    expect(deleted.statusCode).toBe(404);
    await vault.write(`secret/destroy/${app}/db`, { versions: [1] });
    const metadata = (await vault.read(`secret/metadata/${app}/db`)).getData();
    expect(metadata.versions['1']).toMatchObject({ destroyed: true });
    expect(metadata.versions['2'].deletion_time).not.toBe('');
  });

  it('writes, reads and lists policies, and refuses an invalid one', async () => {
    const name = uniq('nvc-pol');
    const policy = 'path "secret/data/nvc/*" { capabilities = ["read"] }';
    await vault.write(`sys/policy/${name}`, { policy });
    expect((await vault.read(`sys/policy/${name}`)).getData()).toEqual({ name, rules: policy });
    expect((await vault.read('sys/policy')).getValue('policies')).toContain(name);
    expect((await vault.list('sys/policies/acl')).getValue('keys')).toContain(name);
    const invalid = await failure(
      vault.write(`sys/policy/${uniq('bad')}`, { policy: 'path "x" { policy = "__proto__" }' }),
    );
    expect(invalid).toMatchObject({
      statusCode: 400,
      error: { errors: ['failed to parse policy: path "x": invalid policy "__proto__"'] },
    });
  });

  it('creates a limited token, which authenticates (lookup-self), reads what its policy grants and renews itself', async () => {
    const name = uniq('nvc-reader');
    const app = uniq('nvc-app');
    await vault.write(`sys/policy/${name}`, {
      policy: `path "secret/data/${app}/*" { capabilities = ["read"] }`,
    });
    await vault.write(`secret/data/${app}/x`, { data: { v: 'visible' } });
    const created = await vault.write('auth/token/create', {
      policies: [name],
      ttl: '1h',
      renewable: false,
      meta: { owner: 'nvc' },
    });
    expect(created.auth).toMatchObject({
      policies: ['default', name],
      metadata: { owner: 'nvc' },
      lease_duration: 3600,
      renewable: false,
    });
    const token: string = created.auth.client_token;
    const limited = clientFor(token);
    expect((await limited.read(`secret/data/${app}/x`)).getValue('data')).toEqual({ v: 'visible' });
    expect(await failure(limited.write(`secret/data/${app}/x`, { data: { v: 'no' } }))).toMatchObject({
      statusCode: 403,
    });
    expect((await limited.read('auth/token/lookup-self')).getData()).toMatchObject({
      id: token,
      meta: { owner: 'nvc' },
      renewable: false,
    });
    const caps = await limited.write('sys/capabilities-self', { paths: [`secret/data/${app}/x`] });
    expect(caps.data[`secret/data/${app}/x`]).toEqual(['read']);
    expect(await failure(limited.write('auth/token/renew-self', {}))).toMatchObject({
      statusCode: 400,
      error: { errors: ['lease is not renewable'] },
    });
  });

  it('governs paths named like Object.prototype members as ordinary paths', async () => {
    const name = uniq('nvc-proto');
    await vault.write(`sys/policy/${name}`, {
      policy:
        'path "secret/data/__proto__" { capabilities = ["read"] }\npath "secret/data/constructor/*" { capabilities = ["read"] }',
    });
    await vault.write('secret/data/__proto__', { data: { v: 'proto' } });
    await vault.write('secret/data/constructor/x', { data: { v: 'ctor' } });
    await vault.write('secret/data/toString', { data: { v: 'no' } });
    const token: string = (await vault.write('auth/token/create', { policies: [name], renewable: false }))
      .auth.client_token;
    const limited = clientFor(token);
    expect((await limited.read('secret/data/__proto__')).getValue('data')).toEqual({ v: 'proto' });
    expect((await limited.read('secret/data/constructor/x')).getValue('data')).toEqual({ v: 'ctor' });
    expect(await failure(limited.read('secret/data/toString'))).toMatchObject({ statusCode: 403 });
    const resultant = (await limited.read('sys/internal/ui/resultant-acl')).getData();
    expect(resultant.exact_paths['secret/data/__proto__']).toEqual({ capabilities: ['read'] });
    expect(resultant.glob_paths['secret/data/constructor/']).toEqual({ capabilities: ['read'] });
  });

  it('looks tokens up and revokes them; a revoked token is Forbidden "bad token"', async () => {
    const created = await vault.write('auth/token/create', { ttl: '10m', num_uses: 5 });
    const token: string = created.auth.client_token;
    const looked = await vault.write('auth/token/lookup', { token });
    expect(looked.data).toMatchObject({ num_uses: 5, ttl: expect.any(Number), orphan: false });
    expect(
      (await vault.write('auth/token/lookup-accessor', { accessor: created.auth.accessor })).data.id,
    ).toBe('');
    await vault.write('auth/token/revoke', { token });
    expect(await failure(vault.write('auth/token/lookup', { token }))).toMatchObject({
      statusCode: 403,
      error: { errors: ['bad token'] },
    });
    expect(await failure(clientFor(token).read('secret/data/x'))).toMatchObject({ statusCode: 403 });
  });

  it('enables userpass, writes a user and logs in', async () => {
    const path = uniq('nvc-up');
    await vault.write(`sys/auth/${path}`, { type: 'userpass' });
    expect((await vault.read('sys/auth')).getData()[`${path}/`]).toMatchObject({ type: 'userpass' });
    await vault.write(`auth/${path}/users/bob`, { password: 'pw-1', token_policies: 'default' });
    expect((await vault.list(`auth/${path}/users`)).getValue('keys')).toEqual(['bob']);
    const login = await vault.write(`auth/${path}/login/bob`, { password: 'pw-1' });
    expect(login.auth).toMatchObject({
      policies: ['default'],
      metadata: { username: 'bob' },
      renewable: true,
    });
    const looked = await vault.write('auth/token/lookup', { token: login.auth.client_token });
    expect(looked.data).toMatchObject({ path: `auth/${path}/login/bob`, entity_id: login.auth.entity_id });
    expect(await failure(vault.write(`auth/${path}/login/bob`, { password: 'wrong' }))).toMatchObject({
      statusCode: 400,
      error: { errors: ['invalid username or password'] },
    });
  });

  it('creates an identity entity and reads it by id and by name', async () => {
    const name = uniq('nvc-entity');
    const created = await vault.write('identity/entity', {
      name,
      metadata: { team: 'web' },
      policies: ['default'],
    });
    const id: string = created.data.id;
    const byId = (await vault.read(`identity/entity/id/${id}`)).getData();
    expect(byId).toMatchObject({ id, name, metadata: { team: 'web' }, policies: ['default'] });
    expect((await vault.read(`identity/entity/name/${name}`)).getValue('id')).toBe(id);
    expect((await vault.list('identity/entity/id')).getValue('keys')).toContain(id);
  });
});
