import { Client } from '@litehex/node-vault';
import { startDevServer, uniq, type DevServer } from '../support';

jest.setTimeout(60_000);

/**
 * @litehex/node-vault, unchanged, against the dev server. Every command answers `{ data }` or
 * `{ error }` (a VaultError whose cause is the fetch Response) and never throws. It parses a body
 * as JSON only when Content-Type is exactly `application/json`, as Vault sends it; otherwise
 * it fails to validate the response. Policies, tokens, userpass and identity have no commands of
 * their own: users go through its generic read/write/list/delete.
 */
describe('dev: the @litehex/node-vault client', () => {
  let dev: DevServer;
  let vc: Client;

  /** `data` of a command's answer; fails with the error's message and status otherwise. */
  async function ok<T>(answer: Promise<{ data?: T; error?: unknown }>): Promise<T> {
    const { data, error } = await answer;
    if (error !== undefined) {
      const e = error as { message?: string; cause?: { status?: number } };
      throw new Error(`expected data, got an error: ${e.message} (status ${e.cause?.status})`);
    }
    return data as T;
  }
  /** The HTTP status and message of a command's error (fails when it answered data). */
  async function fails(
    answer: Promise<{ data?: unknown; error?: unknown }>,
  ): Promise<{ status?: number; message: string }> {
    const { data, error } = await answer;
    if (error === undefined) throw new Error(`expected an error, got ${JSON.stringify(data)}`);
    const e = error as { message: string; cause?: { status?: number } };
    return { status: e.cause?.status, message: e.message };
  }

  beforeAll(async () => {
    dev = await startDevServer();
    vc = new Client({ endpoint: dev.baseUrl, token: dev.rootToken });
  }, 120_000);
  afterAll(() => dev?.stop());

  it('mounts kv v2, reads its info and tuning, lists mounts and unmounts it', async () => {
    const mountPath = uniq('lh-kv');
    expect(await ok(vc.mount({ mountPath, type: 'kv-v2', description: 'lh' }))).toBe(true);
    const mounts = await ok(vc.mounts());
    expect(mounts.data[`${mountPath}/`]).toMatchObject({
      type: 'kv',
      description: 'lh',
      options: { version: '2' },
    });
    expect(await ok(vc.engineInfo({ mountPath }))).toMatchObject({ type: 'kv', options: { version: '2' } });
    expect(await ok(vc.tune({ mountPath }))).toMatchObject({
      default_lease_ttl: 2764800,
      force_no_cache: false,
    });
    expect(await ok(vc.unmount({ mountPath }))).toBe(true);
    expect((await ok(vc.mounts())).data).not.toHaveProperty(`${mountPath}/`);
  });

  it('writes, reads, lists and deletes kv v1 secrets', async () => {
    const mountPath = uniq('lh-v1');
    await ok(vc.mount({ mountPath, type: 'kv', options: { version: '1' } }));
    expect(await ok(vc.kv.write({ mountPath, path: 'team/a', data: { k: 'v' } }))).toBe(true);
    await ok(vc.kv.write({ mountPath, path: 'team/sub/b', data: { k: 'w' } }));
    expect((await ok(vc.kv.read({ mountPath, path: 'team/a' }))).data).toEqual({ k: 'v' });
    expect((await ok(vc.kv.list({ mountPath, path: 'team' }))).data.keys).toEqual(['a', 'sub/']);
    expect(await ok(vc.kv.delete({ mountPath, path: 'team/a' }))).toBe(true);
    expect(await fails(vc.kv.read({ mountPath, path: 'team/a' }))).toMatchObject({ status: 404 });
  });

  it('writes, reads, patches, lists, deletes, undeletes and destroys kv v2 secrets', async () => {
    const mountPath = 'secret';
    // one segment: the client's URL templating garbles a nested path once ?version= is added
    const path = uniq('lh-db');
    const written = await ok(vc.kv2.write({ mountPath, path, data: { user: 'admin' } }));
    expect(written.data).toMatchObject({ version: 1, destroyed: false });
    await ok(vc.kv2.write({ mountPath, path, data: { user: 'root' }, options: { cas: 1 } }));
    const cas = await fails(vc.kv2.write({ mountPath, path, data: { user: 'x' }, options: { cas: 1 } }));
    expect(cas).toMatchObject({
      status: 400,
      message: 'check-and-set parameter did not match the current version',
    });
    const read = await ok(vc.kv2.read({ mountPath, path }));
    expect(read.data).toMatchObject({ data: { user: 'root' }, metadata: { version: 2 } });
    expect((await ok(vc.kv2.read({ mountPath, path, version: 1 }))).data.data).toEqual({ user: 'admin' });
    expect((await ok(vc.kv2.patch({ mountPath, path, data: { port: '5432' } }))).data).toMatchObject({
      version: 3,
    });
    expect((await ok(vc.kv2.subKeys({ mountPath, path }))).data.subkeys).toEqual({ user: null, port: null });
    await ok(vc.kv2.write({ mountPath, path: `${path}-dir/inner`, data: { k: 'v' } }));
    expect((await ok(vc.kv2.list({ mountPath, path: `${path}-dir` }))).data.keys).toEqual(['inner']);
    expect((await ok(vc.kv2.readMetadata({ mountPath, path }))).data).toMatchObject({ current_version: 3 });
    expect(await ok(vc.kv2.deleteLatest({ mountPath, path }))).toBe(true);
    expect(await fails(vc.kv2.read({ mountPath, path }))).toMatchObject({ status: 404 });
    expect(await ok(vc.kv2.undelete({ mountPath, path, versions: [3] }))).toBe(true);
    expect(await ok(vc.kv2.delete({ mountPath, path, versions: [1] }))).toBe(true);
    expect(await ok(vc.kv2.destroy({ mountPath, path, versions: [1] }))).toBe(true);
    const versions = (await ok(vc.kv2.readMetadata({ mountPath, path }))).data.versions;
    expect(versions['1']).toMatchObject({ destroyed: true });
    expect(await ok(vc.kv2.deleteMetadata({ mountPath, path }))).toBe(true);
    expect(await fails(vc.kv2.readMetadata({ mountPath, path }))).toMatchObject({ status: 404 });
  });

  it('writes, reads, lists and deletes a policy; an invalid policy value is a 400', async () => {
    const name = uniq('lh-pol');
    const policy = 'path "secret/data/lh/*" { capabilities = ["read"] }';
    expect(await ok(vc.write({ path: `sys/policies/acl/${name}`, data: { policy } }))).toBe(true);
    expect((await ok(vc.read({ path: `sys/policies/acl/${name}` }))).data).toEqual({ name, policy });
    expect((await ok(vc.list({ path: 'sys/policies/acl' }))).data.keys).toContain(name);
    expect(await ok(vc.delete({ path: `sys/policies/acl/${name}` }))).toBe(true);
    expect(
      await fails(
        vc.write({ path: `sys/policy/${name}`, data: { policy: 'path "a" { policy = "constructor" }' } }),
      ),
    ).toEqual({ status: 400, message: 'failed to parse policy: path "a": invalid policy "constructor"' });
  });

  it('creates, looks up, renews and revokes a token; a revoked token is 403 "bad token"', async () => {
    const created = await ok(
      vc.write({
        path: 'auth/token/create',
        data: { policies: ['default'], ttl: '1h', meta: { via: 'litehex' } },
      }),
    );
    const auth = (created as { auth: Record<string, any> }).auth;
    expect(auth).toMatchObject({ policies: ['default'], metadata: { via: 'litehex' }, lease_duration: 3600 });
    const token: string = auth.client_token;
    const limited = new Client({ endpoint: dev.baseUrl, token });
    expect((await ok(limited.read({ path: 'auth/token/lookup-self' }))).data).toMatchObject({ id: token });
    const renewed = await ok(limited.write({ path: 'auth/token/renew-self', data: { increment: '15m' } }));
    expect((renewed as { auth: Record<string, any> }).auth).toMatchObject({ lease_duration: 900 });
    expect(await ok(vc.write({ path: 'auth/token/revoke', data: { token } }))).toBe(true);
    expect(await fails(vc.write({ path: 'auth/token/lookup', data: { token } }))).toEqual({
      status: 403,
      message: 'bad token',
    });
    expect(await fails(limited.read({ path: 'auth/token/lookup-self' }))).toMatchObject({ status: 403 });
  });

  it('enables userpass, writes a user and logs in', async () => {
    const path = uniq('lh-up');
    expect(await ok(vc.write({ path: `sys/auth/${path}`, data: { type: 'userpass' } }))).toBe(true);
    await ok(
      vc.write({ path: `auth/${path}/users/gina`, data: { password: 'pw', token_policies: 'default' } }),
    );
    const login = await ok(vc.write({ path: `auth/${path}/login/gina`, data: { password: 'pw' } }));
    expect((login as { auth: Record<string, any> }).auth).toMatchObject({
      policies: ['default'],
      metadata: { username: 'gina' },
    });
    expect(await fails(vc.write({ path: `auth/${path}/login/gina`, data: { password: 'no' } }))).toEqual({
      status: 400,
      message: 'invalid username or password',
    });
  });

  it('creates an identity entity and reads it by name', async () => {
    const name = uniq('lh-entity');
    const created = await ok(vc.write({ path: 'identity/entity', data: { name, metadata: { a: 'b' } } }));
    const id = (created as { data: { id: string } }).data.id;
    const read = await ok(vc.read({ path: `identity/entity/name/${name}` }));
    expect(read.data).toMatchObject({ id, name, metadata: { a: 'b' } });
  });
});
