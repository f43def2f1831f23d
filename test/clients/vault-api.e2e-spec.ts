import vaultApi from 'vault-api';
import type { VaultFunc } from 'vault-api/dist/types';
import { startDevServer, uniq, type DevServer } from '../support';

jest.setTimeout(60_000);

/** axios' rejection for a non-2xx answer. */
interface AxiosFailure {
  response?: { status: number; data: { errors?: string[] } | string };
}

/**
 * vault-api, unchanged, against the dev server. It picks an "engine" per mount from
 * sys/internal/ui/mounts (kv v1 and v2 built in); paths outside secret engines (sys/, auth/,
 * identity/) go through its generic kv engine, `engine: 'kv'`, which maps read/list/write/delete
 * to GET/GET ?list=true/POST/DELETE as they are.
 */
describe('dev: the vault-api client', () => {
  let dev: DevServer;
  let vault: VaultFunc;

  const raw = (method: 'read' | 'list' | 'write' | 'delete', path: string, data?: unknown, token?: string) =>
    vault({ method, path, data, engine: 'kv', ...(token ? { token } : {}) });
  const failure = async (
    call: Promise<unknown>,
  ): Promise<{ status: number; errors: string[] | undefined }> => {
    try {
      await call;
    } catch (error) {
      const response = (error as AxiosFailure).response;
      if (!response) throw error;
      return {
        status: response.status,
        errors: typeof response.data === 'string' ? undefined : response.data.errors,
      };
    }
    throw new Error('the call succeeded, expected a failure');
  };

  beforeAll(async () => {
    dev = await startDevServer();
    const create = vaultApi.create;
    if (!create) throw new Error('vault-api without create()');
    vault = create({ address: dev.baseUrl, token: dev.rootToken });
  }, 120_000);
  afterAll(() => dev?.stop());

  it('enables, lists and disables a kv mount', async () => {
    const path = uniq('va-kv');
    expect(
      (await raw('write', `sys/mounts/${path}`, { type: 'kv', options: { version: '1' } })).statusCode,
    ).toBe(204);
    expect((await raw('read', 'sys/mounts')).data[`${path}/`]).toMatchObject({
      type: 'kv',
      options: { version: '1' },
    });
    expect((await raw('delete', `sys/mounts/${path}`)).statusCode).toBe(204);
    expect((await raw('read', 'sys/mounts')).data).not.toHaveProperty(`${path}/`);
  });

  it('writes, reads, lists and deletes kv v1 secrets through its kv engine', async () => {
    const mount = uniq('va-v1');
    await raw('write', `sys/mounts/${mount}`, { type: 'kv', options: { version: '1' } });
    expect((await vault.write(`${mount}/app/one`, { key: 'value-1' })).statusCode).toBe(204);
    await vault.write(`${mount}/app/deep/two`, { key: 'value-2' });
    const read = await vault.read(`${mount}/app/one`);
    expect(read).toMatchObject({ statusCode: 200, data: { key: 'value-1' }, lease_duration: 2764800 });
    expect((await vault.list(`${mount}/app`)).data.keys).toEqual(['deep/', 'one']);
    expect((await vault.delete(`${mount}/app/one`)).statusCode).toBe(204);
    expect(await failure(vault.read(`${mount}/app/one`))).toEqual({ status: 404, errors: [] });
  });

  it('writes, reads, patches, lists, deletes and destroys kv v2 secrets through its kv2 engine', async () => {
    const app = uniq('va');
    const written = await vault.write(`secret/${app}/db`, { user: 'admin' });
    expect(written).toMatchObject({ statusCode: 200, data: { version: 1 } });
    await vault({ method: 'write', path: `secret/${app}/db`, data: { user: 'root' }, options: { cas: 1 } });
    // kv2 "read" lifts the secret's data and metadata to the top of the response
    const read = await vault.read(`secret/${app}/db`);
    expect(read).toMatchObject({ statusCode: 200, data: { user: 'root' }, metadata: { version: 2 } });
    expect((await vault({ method: 'read', path: `secret/${app}/db`, version: 1 })).data).toEqual({
      user: 'admin',
    });
    // vault-api's patch sends its data as the body itself; Vault's kv v2 PATCH wants {data: {...}}
    expect(
      await failure(vault({ method: 'patch', path: `secret/${app}/db`, data: { port: '5432' } })),
    ).toEqual({
      status: 400,
      errors: ['no data provided'],
    });
    const patched = await vault({
      method: 'patch',
      path: `secret/${app}/db`,
      data: { data: { port: '5432' } },
    });
    expect(patched.data.version).toBe(3);
    expect((await vault.read(`secret/${app}/db`)).data).toEqual({ user: 'root', port: '5432' });
    expect((await vault.list(`secret/${app}`)).data.keys).toEqual(['db']);
    const metadata = await vault({ method: 'readMetadata', path: `secret/${app}/db` });
    expect(metadata.data).toMatchObject({ current_version: 3 });
    await vault({ method: 'writeMetadata', path: `secret/${app}/db`, data: { max_versions: 4 } });
    expect((await vault({ method: 'readMetadata', path: `secret/${app}/db` })).data.max_versions).toBe(4);
    await vault({ method: 'deleteVersions', path: `secret/${app}/db`, data: { versions: [3] } });
    expect(await failure(vault.read(`secret/${app}/db`))).toMatchObject({ status: 404 });
    await vault({ method: 'undeleteVersions', path: `secret/${app}/db`, data: { versions: [3] } });
    await vault({ method: 'destroy', path: `secret/${app}/db`, data: { versions: [1] } });
    expect(
      (await vault({ method: 'readMetadata', path: `secret/${app}/db` })).data.versions['1'].destroyed,
    ).toBe(true);
    expect((await vault.delete(`secret/${app}/db`)).statusCode).toBe(204);
    expect((await vault({ method: 'deleteMetadata', path: `secret/${app}/db` })).statusCode).toBe(204);
    expect(await failure(vault.list(`secret/${app}`))).toMatchObject({ status: 404 });
    expect((await vault({ method: 'config', path: 'secret' })).data).toMatchObject({ cas_required: false });
  });

  it('writes, reads, lists and deletes a policy; refuses policy = "toString"', async () => {
    const name = uniq('va-pol');
    const policy = 'path "secret/data/va/*" { capabilities = ["read", "list"] }';
    expect((await raw('write', `sys/policies/acl/${name}`, { policy })).statusCode).toBe(204);
    expect((await raw('read', `sys/policies/acl/${name}`)).data).toEqual({ name, policy });
    expect((await raw('list', 'sys/policies/acl')).data.keys).toContain(name);
    expect((await raw('delete', `sys/policies/acl/${name}`)).statusCode).toBe(204);
    expect(await failure(raw('read', `sys/policies/acl/${name}`))).toMatchObject({ status: 404 });
    expect(
      await failure(raw('write', `sys/policies/acl/${name}`, { policy: 'path "a" { policy = "toString" }' })),
    ).toEqual({
      status: 400,
      errors: ['failed to parse policy: path "a": invalid policy "toString"'],
    });
  });

  it('creates, looks up, renews and revokes tokens; an unknown token is 403 "bad token"', async () => {
    const created = await raw('write', 'auth/token/create', {
      policies: ['default'],
      ttl: '1h',
      meta: { app: 'va' },
      num_uses: 0,
    });
    const token: string = created.auth.client_token;
    expect(created.auth).toMatchObject({
      policies: ['default'],
      lease_duration: 3600,
      metadata: { app: 'va' },
    });
    expect((await raw('write', 'auth/token/lookup', { token })).data).toMatchObject({ meta: { app: 'va' } });
    expect((await raw('read', 'auth/token/lookup-self', undefined, token)).data.id).toBe(token);
    const renewed = await raw('write', 'auth/token/renew-self', { increment: '20m' }, token);
    expect(renewed.auth).toMatchObject({ client_token: token, lease_duration: 1200 });
    expect((await raw('write', 'auth/token/revoke', { token })).statusCode).toBe(204);
    expect(await failure(raw('write', 'auth/token/lookup', { token }))).toEqual({
      status: 403,
      errors: ['bad token'],
    });
    expect(await failure(raw('write', 'auth/token/lookup', { token: 'hvs.unknown' }))).toEqual({
      status: 403,
      errors: ['bad token'],
    });
  });

  it('enables userpass, writes a user, logs in and reads with the login token', async () => {
    const path = uniq('va-up');
    await raw('write', `sys/auth/${path}`, { type: 'userpass' });
    await raw('write', `auth/${path}/users/carol`, { password: 'pw', token_policies: ['default'] });
    const login = await raw('write', `auth/${path}/login/carol`, { password: 'pw' });
    expect(login.auth).toMatchObject({ metadata: { username: 'carol' }, token_policies: ['default'] });
    const self = await raw('read', 'auth/token/lookup-self', undefined, login.auth.client_token);
    expect(self.data).toMatchObject({ path: `auth/${path}/login/carol`, entity_id: login.auth.entity_id });
    expect((await raw('delete', `sys/auth/${path}`)).statusCode).toBe(204);
  });

  it('creates an identity entity and reads it back', async () => {
    const name = uniq('va-entity');
    const created = await raw('write', 'identity/entity', {
      name,
      policies: ['default'],
      metadata: { o: 'p' },
    });
    const id: string = created.data.id;
    expect((await raw('read', `identity/entity/id/${id}`)).data).toMatchObject({
      id,
      name,
      metadata: { o: 'p' },
    });
    expect((await raw('read', `identity/entity/name/${name}`)).data.id).toBe(id);
    expect((await raw('delete', `identity/entity/id/${id}`)).statusCode).toBe(204);
  });
});
