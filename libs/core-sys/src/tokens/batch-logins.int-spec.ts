import {
  approleContracts,
  coreTokenResolve,
  sysContracts,
  tokenContracts,
  userpassContracts,
  type MountInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let up: MountInfo;
let ar: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('batch-logins');
  up = await h.enableAuth('upb', 'userpass');
  ar = await h.enableAuth('arb', 'approle');
});

afterAll(async () => {
  await h?.close();
});

const anon = {
  requestId: 'r',
  namespace: '',
  clientAddress: '127.0.0.1',
  policies: [],
  root: false,
  sudo: false,
};

const userWrite = (name: string, body: Record<string, unknown>) => ({
  mount: up,
  operation: 'create' as const,
  path: `users/${name}`,
  params: { username: name },
  body: { password: 'pw', ...body },
});
const user = (name: string, body: Record<string, unknown>) =>
  h.call(userpassContracts.userWrite, userWrite(name, body));
const userFails = (name: string, body: Record<string, unknown>) =>
  h.fail(userpassContracts.userWrite, userWrite(name, body));
const login = async (name: string) => {
  const res = await h.call(
    userpassContracts.login,
    { mount: up, path: `login/${name}`, params: { username: name }, body: { password: 'pw' } },
    anon,
  );
  if (!res.auth) throw new Error('no auth');
  return res.auth;
};
const tuneAuth = (path: string, body: Record<string, unknown>) =>
  h.call(sysContracts.authTune, {
    mount: h.mount('sys/'),
    path: `auth/${path}/tune`,
    params: { path },
    body,
  });

describe('batch tokens from auth methods (Vault: router settles token_type with the mount)', () => {
  it('userpass token_type=batch logs in with a batch token that resolves and is not renewable', async () => {
    await user('bat', { token_type: 'batch', token_ttl: '10m', token_policies: 'default' });
    const auth = await login('bat');
    expect(auth.client_token).toMatch(/^hvb\./);
    expect(auth).toMatchObject({ accessor: '', token_type: 'batch', renewable: false, orphan: true });
    expect(auth.lease_duration).toBe(600);
    const resolved = await h.client.request(coreTokenResolve, { token: auth.client_token });
    expect(resolved.accessor).toBe('');
    const renew = await h.fail(tokenContracts.renew, {
      mount: h.mount('auth/token/'),
      path: 'renew',
      body: { token: auth.client_token },
    });
    expect(renew).toMatchObject({ code: 'invalid_request', message: 'batch tokens cannot be renewed' });
  });

  it("refuses batch users with a period or use count with Vault's texts, and stores nothing", async () => {
    expect(await userFails('per', { token_type: 'batch', token_period: '1h' })).toMatchObject({
      message: "'token_type' cannot be 'batch' or 'default_batch' when set to generate periodic tokens",
    });
    expect(await userFails('def', { token_type: 'default-batch' })).toMatchObject({
      message: `invalid 'token_type' value "default-batch"`,
    });
    expect(await userFails('uses', { token_type: 'batch', token_num_uses: 3 })).toMatchObject({
      message:
        "'token_type' cannot be 'batch' or 'default_batch' when set to generate tokens with limited use count",
    });
    expect(
      await h.fail(userpassContracts.userRead, { mount: up, path: 'users/per', params: { username: 'per' } }),
    ).toMatchObject({ code: 'not_found' });
  });

  it('the mount tune token_type: batch forces batch, service forces service, default-batch fills in', async () => {
    await user('plain', { token_ttl: '5m', token_num_uses: 2 });
    await user('svc', { token_type: 'service' });
    expect((await login('plain')).token_type).toBe('service');

    await tuneAuth('upb', { token_type: 'default-batch' });
    const plain = await login('plain');
    expect(plain.token_type).toBe('batch');
    // Vault's batch entry carries no use count
    expect(plain.num_uses).toBe(0);
    expect((await login('svc')).token_type).toBe('service');

    await tuneAuth('upb', { token_type: 'service' });
    expect((await login('bat')).token_type).toBe('service');

    await tuneAuth('upb', { token_type: 'batch' });
    expect((await login('svc')).token_type).toBe('batch');
    await tuneAuth('upb', { token_type: 'default-service' });
    expect((await login('bat')).token_type).toBe('batch');
  });

  it('approle roles with token_type=batch log in with batch tokens', async () => {
    await h.call(approleContracts.roleWrite, {
      mount: ar,
      operation: 'create',
      path: 'role/b',
      params: { role_name: 'b' },
      body: { bind_secret_id: false, secret_id_bound_cidrs: '127.0.0.0/8', token_type: 'batch' },
    });
    const roleId = await h.call(approleContracts.roleIdRead, {
      mount: ar,
      path: 'role/b/role-id',
      params: { role_name: 'b' },
    });
    const res = await h.call(
      approleContracts.login,
      { mount: ar, path: 'login', body: { role_id: roleId.data?.role_id } },
      anon,
    );
    expect(res.auth).toMatchObject({ token_type: 'batch', accessor: '', renewable: false });
  });
});

describe('token role renewals re-read the role (Vault: authRenew)', () => {
  const tokenMount = () => h.mount('auth/token/');
  const role = (name: string, body: Record<string, unknown>, operation: 'create' | 'update') =>
    h.call(tokenContracts.roleWrite, {
      mount: tokenMount(),
      operation,
      path: `roles/${name}`,
      params: { name },
      body,
    });

  it("a periodic role's token renews with the role's current period", async () => {
    await role('per', { token_period: '1h' }, 'create');
    const created = await h.call(tokenContracts.createWithRole, {
      mount: tokenMount(),
      path: 'create/per',
      params: { role: 'per' },
      body: {},
    });
    const token = created.auth?.client_token ?? '';
    expect(created.auth?.lease_duration).toBe(3600);
    await role('per', { token_period: '2h' }, 'update');
    const renewed = await h.call(tokenContracts.renew, {
      mount: tokenMount(),
      path: 'renew',
      body: { token },
    });
    expect(renewed.auth?.lease_duration).toBe(7200);

    await role('per', { token_period: 0, token_explicit_max_ttl: '30m' }, 'update');
    const capped = await h.call(tokenContracts.renew, {
      mount: tokenMount(),
      path: 'renew',
      body: { token, increment: '1h' },
    });
    expect(capped.auth?.lease_duration).toBe(1800);
    expect(capped.warnings).toEqual([
      'TTL of "1h" exceeded the effective max_ttl of "30m"; TTL value is capped accordingly',
    ]);

    await h.call(tokenContracts.roleDelete, {
      mount: tokenMount(),
      path: 'roles/per',
      params: { name: 'per' },
    });
    expect(
      await h.fail(tokenContracts.renew, { mount: tokenMount(), path: 'renew', body: { token } }),
    ).toMatchObject({ message: 'original token role "per" could not be found, not renewing' });
  });
});
