import {
  coreTokenResolve,
  identityContracts,
  invalidation,
  tokenContracts,
  userpassContracts,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let up: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('userpass');
  up = await h.enableAuth('userpass', 'userpass');
});

afterAll(async () => {
  await h?.close();
});

const user = (name: string, body: Record<string, unknown> = {}, operation: 'create' | 'update' = 'create') =>
  h.call(userpassContracts.userWrite, {
    mount: up,
    operation,
    path: `users/${name}`,
    params: { username: name },
    body,
  });

const login = (name: string, password: string, clientAddress = '127.0.0.1') =>
  h.call(
    userpassContracts.login,
    { mount: up, path: `login/${name}`, params: { username: name }, body: { password } },
    { requestId: 'r', namespace: '', clientAddress, policies: [], root: false, sudo: false },
  );

const loginFails = (name: string, password: string) =>
  h.fail(userpassContracts.login, {
    mount: up,
    path: `login/${name}`,
    params: { username: name },
    body: { password },
  });

describe('users', () => {
  it('creates, reads, lists and checks existence', async () => {
    expect(
      await user('bob', {
        password: 'hunter2',
        token_policies: 'web,ops',
        token_ttl: '1h',
        token_max_ttl: '2h',
      }),
    ).toMatchObject({
      data: null,
      auth: null,
    });
    const read = await h.call(userpassContracts.userRead, {
      mount: up,
      operation: 'read',
      path: 'users/bob',
      params: { username: 'bob' },
    });
    expect(read.data).toEqual({
      token_bound_cidrs: [],
      token_explicit_max_ttl: 0,
      token_max_ttl: 7200,
      token_no_default_policy: false,
      token_num_uses: 0,
      token_period: 0,
      token_policies: ['web', 'ops'],
      token_ttl: 3600,
      token_type: 'default',
    });
    const exists = (name: string) =>
      h.client.request(userpassContracts.userExists, {
        operation: 'create',
        mount: up,
        path: `users/${name}`,
        params: { username: name },
        body: {},
        query: {},
        headers: {},
      });
    expect(await exists('BOB')).toEqual({ exists: true });
    expect(await exists('nobody')).toEqual({ exists: false });
    const list = await h.call(userpassContracts.userList, { mount: up, operation: 'list', path: 'users' });
    expect(list.data).toEqual({ keys: ['bob'] });
  });

  it('creates a user again after it was deleted, with a fresh password', async () => {
    await user('again', { password: 'first-pass' });
    await h.call(userpassContracts.userDelete, {
      mount: up,
      operation: 'delete',
      path: 'users/again',
      params: { username: 'again' },
    });
    await loginFails('again', 'first-pass');
    await user('again', { password: 'second-pass' });
    expect((await login('again', 'second-pass')).auth).toMatchObject({ policies: ['default'] });
    await loginFails('again', 'first-pass');
  });

  it('needs a password to create, and a valid name', async () => {
    expect(
      await h.fail(userpassContracts.userWrite, {
        mount: up,
        path: 'users/carol',
        params: { username: 'carol' },
        body: {},
      }),
    ).toMatchObject({
      code: 'invalid_request',
      message: 'missing password',
    });
    expect(
      await h.fail(userpassContracts.userWrite, {
        mount: up,
        path: 'users/bad.',
        params: { username: 'bad.' },
        body: { password: 'x' },
      }),
    ).toMatchObject({
      code: 'unsupported_path',
    });
    expect(
      await h.fail(userpassContracts.userPassword, {
        mount: up,
        path: 'users/ghost/password',
        params: { username: 'ghost' },
        body: { password: 'x' },
      }),
    ).toMatchObject({ message: 'username does not exist' });
  });
});

describe('login', () => {
  it('answers the same 400 for a wrong password and an unknown user', async () => {
    expect(await loginFails('bob', 'wrong')).toEqual({
      code: 'invalid_request',
      message: 'invalid username or password',
      warnings: undefined,
    });
    expect(await loginFails('mallory', 'hunter2')).toMatchObject({
      code: 'invalid_request',
      message: 'invalid username or password',
    });
  });

  it('issues a login token tied to an entity created on first login and reused after', async () => {
    const first = await login('Bob', 'hunter2');
    expect(first.auth).toMatchObject({
      policies: ['default', 'ops', 'web'],
      token_policies: ['default', 'ops', 'web'],
      metadata: { username: 'bob' },
      lease_duration: 3600,
      renewable: true,
      orphan: true,
      token_type: 'service',
      entity_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const entityId = first.auth?.entity_id ?? '';
    const second = await login('bob', 'hunter2');
    expect(second.auth?.entity_id).toBe(entityId);

    const looked = await h.call(tokenContracts.lookup, {
      mount: h.mount('auth/token/'),
      path: 'lookup',
      body: { token: first.auth?.client_token },
    });
    expect(looked.data).toMatchObject({
      path: 'auth/userpass/login/bob',
      display_name: 'userpass-bob',
      entity_id: entityId,
      meta: { username: 'bob' },
    });

    const entity = await h.call(identityContracts.entityByIdRead, {
      mount: h.mount('identity/'),
      operation: 'read',
      path: `entity/id/${entityId}`,
      params: { id: entityId },
    });
    expect(entity.data).toMatchObject({
      id: entityId,
      name: expect.stringMatching(/^entity_[0-9a-f]{8}$/),
      aliases: [
        {
          mount_accessor: up.accessor,
          name: 'bob',
          mount_type: 'userpass',
          mount_path: 'auth/userpass/',
          canonical_id: entityId,
        },
      ],
    });
  });

  it('applies entity policies to the tokens, and a disabled entity stops them', async () => {
    const { auth } = await login('bob', 'hunter2');
    const token = auth?.client_token ?? '';
    const entityId = auth?.entity_id ?? '';
    const invalidations = await h.record(invalidation);
    const identityMount = h.mount('identity/');
    const updateEntity = (body: Record<string, unknown>) =>
      h.call(identityContracts.entityByIdWrite, {
        mount: identityMount,
        path: `entity/id/${entityId}`,
        params: { id: entityId },
        body,
      });

    expect(await updateEntity({ policies: ['admin'] })).toMatchObject({ data: null });
    expect(await h.client.request(coreTokenResolve, { token })).toMatchObject({
      identityPolicies: ['admin'],
      entityId,
    });
    await waitFor(() => invalidations.some((i) => i.kind === 'token' && i.keys.length === 0));
    expect(invalidations).toContainEqual({ kind: 'entity', keys: [entityId] });

    const next = await login('bob', 'hunter2');
    expect(next.auth).toMatchObject({
      identity_policies: ['admin'],
      policies: ['admin', 'default', 'ops', 'web'],
    });

    await updateEntity({ disabled: true });
    await expect(h.client.request(coreTokenResolve, { token })).rejects.toMatchObject({
      code: 'invalid_token',
    });
    await updateEntity({ disabled: false });
    expect((await h.client.request(coreTokenResolve, { token })).accessor).toBe(auth?.accessor);
  });

  it('follows password and policy changes', async () => {
    await h.call(userpassContracts.userPassword, {
      mount: up,
      path: 'users/bob/password',
      params: { username: 'bob' },
      body: { password: 'n3w' },
    });
    expect(await loginFails('bob', 'hunter2')).toMatchObject({ message: 'invalid username or password' });
    await h.call(userpassContracts.userPolicies, {
      mount: up,
      path: 'users/bob/policies',
      params: { username: 'bob' },
      body: { token_policies: ['audit'] },
    });
    const { auth } = await login('bob', 'n3w');
    expect(auth?.token_policies).toEqual(['audit', 'default']);
  });

  it('updates only the given fields', async () => {
    await user('bob', { token_num_uses: 3, token_no_default_policy: true }, 'update');
    const { auth } = await login('bob', 'n3w');
    expect(auth).toMatchObject({ token_policies: ['audit'], num_uses: 3 });
  });

  it('enforces bound CIDRs against the client address', async () => {
    await user('dave', { password: 'pw', token_bound_cidrs: ['10.0.0.0/8'] });
    expect((await login('dave', 'pw', '10.1.2.3')).auth?.metadata).toEqual({ username: 'dave' });
    await expect(login('dave', 'pw', '127.0.0.1')).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('binds the login token to the bound CIDRs (checked on every use by the gateway)', async () => {
    const token = (await login('dave', 'pw', '10.1.2.3')).auth?.client_token ?? '';
    expect((await h.client.request(coreTokenResolve, { token })).boundCidrs).toEqual(['10.0.0.0/8']);
  });

  it('refuses root policies at login', async () => {
    await user('eve', { password: 'pw', token_policies: ['root'] });
    expect(await loginFails('eve', 'pw')).toMatchObject({
      message: 'auth methods cannot create root tokens',
    });
  });

  it('deletes users', async () => {
    await h.call(userpassContracts.userDelete, {
      mount: up,
      operation: 'delete',
      path: 'users/eve',
      params: { username: 'eve' },
    });
    expect(await loginFails('eve', 'pw')).toMatchObject({ message: 'invalid username or password' });
    expect(
      await h.fail(userpassContracts.userRead, {
        mount: up,
        operation: 'read',
        path: 'users/eve',
        params: { username: 'eve' },
      }),
    ).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('null fields (hvac sends null for what it leaves unset)', () => {
  it('creates and updates users with null as "not set"', async () => {
    const nulls = {
      token_policies: null,
      policies: null,
      token_ttl: null,
      token_max_ttl: null,
      token_explicit_max_ttl: null,
      token_period: null,
      token_num_uses: null,
      token_no_default_policy: null,
      token_type: null,
      token_bound_cidrs: null,
    };
    await user('nully', { password: 'pw', ...nulls, token_policies: ['web'] });
    await user('nully', { ...nulls, password: null }, 'update');
    const read = await h.call(userpassContracts.userRead, {
      mount: up,
      operation: 'read',
      path: 'users/nully',
      params: { username: 'nully' },
    });
    expect(read.data).toMatchObject({ token_policies: ['web'], token_ttl: 0, token_type: 'default' });
    await h.call(userpassContracts.userPolicies, {
      mount: up,
      path: 'users/nully/policies',
      params: { username: 'nully' },
      body: { token_policies: null, policies: 'ops' },
    });
    expect((await login('nully', 'pw')).auth?.policies).toEqual(['default', 'ops']);
  });
});
