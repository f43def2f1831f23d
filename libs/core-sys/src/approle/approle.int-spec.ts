import { sql } from 'kysely';
import {
  coreTokenResolve,
  approleContracts as c,
  tokenContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { ApproleSecretIdSweeper } from './approle-sweeper';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { approleCalls } from '../test-support/approle-calls';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let ar: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('approle');
  ar = await h.enableAuth('approle', 'approle');
});

afterAll(async () => {
  await h?.close();
});

const callerAt = (clientAddress: string): CallerContext => ({
  requestId: 'r',
  namespace: '',
  clientAddress,
  policies: [],
  root: false,
  sudo: false,
});

const { req, call, fail, writeRole, roleId } = approleCalls(
  () => h,
  () => ar,
);
const newSecretId = async (name: string, body: Record<string, unknown> = {}) => {
  const res = await call(c.secretIdCreate, `role/${name}/secret-id`, name, body);
  if (!res.data) throw new Error('no secret id');
  return res.data;
};
const login = (body: Record<string, unknown>, address = '127.0.0.1') =>
  h.call(c.login, { mount: ar, path: 'login', body }, callerAt(address));
const loginFails = (body: Record<string, unknown>, address = '127.0.0.1') =>
  h.fail(c.login, { mount: ar, path: 'login', body }, callerAt(address));

describe('roles', () => {
  it('creates with Vault defaults, reads, lists and checks existence', async () => {
    expect(
      await writeRole('web', { token_policies: 'web,ops', token_ttl: '1h', token_max_ttl: '2h' }),
    ).toMatchObject({ data: null, auth: null });
    const read = await call(c.roleRead, 'role/web', 'web', {}, 'read');
    expect(read.data).toEqual({
      bind_secret_id: true,
      local_secret_ids: false,
      secret_id_bound_cidrs: [],
      secret_id_num_uses: 0,
      secret_id_ttl: 0,
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
    expect(await roleId('web')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(c.roleList, 'role', undefined, {}, 'list')).data).toEqual({ keys: ['web'] });
    const exists = async (name: string) =>
      await h.call(c.roleExists, req(`role/${name}`, name, {}, 'create'));
    expect(await exists('web')).toEqual({ exists: true });
    expect(await exists('nope')).toEqual({ exists: false });
  });

  it('updates only the given fields and keeps the role id', async () => {
    const before = await roleId('web');
    await writeRole('web', { secret_id_num_uses: 5, secret_id_ttl: '10m', period: '1h' }, 'update');
    const read = await call(c.roleRead, 'role/web', 'web', {}, 'read');
    expect(read.data).toMatchObject({
      secret_id_num_uses: 5,
      secret_id_ttl: 600,
      token_period: 3600,
      token_ttl: 3600,
    });
    expect(await roleId('web')).toBe(before);
    await writeRole('web', { secret_id_num_uses: 0, secret_id_ttl: 0 }, 'update');
  });

  it('answers 400 with Vault texts for bad input and stores nothing', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ bind_secret_id: false }, 'at least one constraint should be enabled on the role'],
      [{ secret_id_num_uses: -1 }, 'secret_id_num_uses cannot be negative'],
      [{ secret_id_bound_cidrs: 'nonsense' }, 'invalid CIDR blocks'],
      [{ token_ttl: '2h', token_max_ttl: '1h' }, "'token_ttl' cannot be greater than 'token_max_ttl'"],
      [{ token_type: 'weird' }, `invalid 'token_type' value "weird"`],
      [{ bind_secret_id: 'maybe' }, expect.stringContaining("cannot parse 'bind_secret_id' as bool")],
    ];
    for (const [body, message] of bad) {
      expect(await fail(c.roleWrite, 'role/broken', 'broken', body, 'create')).toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    expect(await fail(c.roleRead, 'role/broken', 'broken', {}, 'read')).toMatchObject({ code: 'not_found' });
    expect(await fail(c.roleWrite, 'role/bad%name', 'bad%name', {}, 'create')).toMatchObject({
      code: 'unsupported_path',
    });
    expect(await fail(c.roleWrite, 'role/web', 'web', { local_secret_ids: true }, 'update')).toMatchObject({
      message: 'local_secret_ids can only be modified during role creation',
    });
  });

  it('accepts bind_secret_id=false with bound CIDRs', async () => {
    await writeRole('open', { bind_secret_id: false, secret_id_bound_cidrs: ['10.0.0.0/8'] });
    const id = await roleId('open');
    const ok = await login({ role_id: id }, '10.1.2.3');
    expect(ok.auth?.metadata).toEqual({ role_name: 'open' });
    expect(await loginFails({ role_id: id }, '192.168.0.1')).toMatchObject({
      code: 'invalid_request',
      message: 'source address "192.168.0.1" unauthorized by CIDR restrictions on the role',
    });
  });
});

describe('role-id', () => {
  it('reads and sets a custom role id, unique per mount', async () => {
    await writeRole('api');
    await call(c.roleIdWrite, 'role/api/role-id', 'api', { role_id: 'my-api-id' });
    expect(await roleId('api')).toBe('my-api-id');
    expect(await fail(c.roleIdWrite, 'role/web/role-id', 'web', { role_id: 'my-api-id' })).toMatchObject({
      code: 'invalid_request',
      message: 'role_id already in use',
    });
    expect(await fail(c.roleWrite, 'role/other', 'other', { role_id: 'my-api-id' }, 'create')).toMatchObject({
      message: 'role_id already in use',
    });
    expect(await fail(c.roleIdWrite, 'role/api/role-id', 'api', {})).toMatchObject({
      message: 'missing role_id',
    });
    expect(await fail(c.roleIdRead, 'role/ghost/role-id', 'ghost', {}, 'read')).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('secret ids', () => {
  it('generates, lists, looks up (by value and accessor) and destroys', async () => {
    const created = await newSecretId('web', { metadata: '{"team":"blue"}', num_uses: 4, ttl: '1h' });
    expect(created).toMatchObject({ secret_id_ttl: 3600, secret_id_num_uses: 4 });
    expect(created.secret_id).toMatch(/^[0-9a-f-]{36}$/);
    const list = await call(c.secretIdList, 'role/web/secret-id', 'web', {}, 'list');
    expect(list.data?.keys).toContain(created.secret_id_accessor);
    const looked = await call(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', {
      secret_id: created.secret_id,
    });
    expect(looked.data).toMatchObject({
      cidr_list: [],
      metadata: { team: 'blue' },
      secret_id_accessor: created.secret_id_accessor,
      secret_id_num_uses: 4,
      secret_id_ttl: 3600,
      token_bound_cidrs: [],
    });
    const byAccessor = await call(c.accessorLookup, 'role/web/secret-id-accessor/lookup', 'web', {
      secret_id_accessor: created.secret_id_accessor,
    });
    expect(byAccessor.data).toEqual(looked.data);
    await call(c.accessorDestroy, 'role/web/secret-id-accessor/destroy', 'web', {
      secret_id_accessor: created.secret_id_accessor,
    });
    const gone = await call(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', {
      secret_id: created.secret_id,
    });
    expect(gone.data).toBeNull();
    expect(
      await fail(c.accessorLookup, 'role/web/secret-id-accessor/lookup', 'web', {
        secret_id_accessor: created.secret_id_accessor,
      }),
    ).toMatchObject({ code: 'not_found' });
  });

  it('destroys by value, and registers custom secret ids once', async () => {
    const custom = await call(c.customSecretId, 'role/web/custom-secret-id', 'web', {
      secret_id: 'my-secret-123',
    });
    expect(custom.data).toMatchObject({
      secret_id: 'my-secret-123',
      secret_id_num_uses: 0,
      secret_id_ttl: 0,
    });
    expect(
      await fail(c.customSecretId, 'role/web/custom-secret-id', 'web', { secret_id: 'my-secret-123' }),
    ).toMatchObject({ code: 'invalid_request', message: 'SecretID is already registered' });
    const id = await roleId('web');
    expect((await login({ role_id: id, secret_id: 'my-secret-123' })).auth?.client_token).toBeTruthy();
    await call(c.secretIdDestroy, 'role/web/secret-id/destroy', 'web', { secret_id: 'my-secret-123' });
    expect(await loginFails({ role_id: id, secret_id: 'my-secret-123' })).toMatchObject({
      message: 'invalid role or secret ID',
    });
    // destroying an unknown secret id is not an error
    await call(
      c.secretIdDestroy,
      'role/web/secret-id/destroy',
      'web',
      { secret_id: 'my-secret-123' },
      'delete',
    );
  });

  it('answers 400 with Vault texts for bad input', async () => {
    await writeRole('limited', {
      secret_id_num_uses: 3,
      secret_id_ttl: '10m',
      secret_id_bound_cidrs: '10.0.0.0/8',
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ['limited', { num_uses: -1 }, 'num_uses cannot be negative'],
      ['limited', { num_uses: 5 }, "num_uses cannot be higher than the role's secret_id_num_uses"],
      ['limited', { num_uses: 0 }, "num_uses cannot be higher than the role's secret_id_num_uses"],
      ['limited', { ttl: '1h' }, "ttl cannot be longer than the role's secret_id_ttl"],
      [
        'limited',
        { cidr_list: '192.168.0.0/16' },
        expect.stringContaining('failed to verify the CIDR restrictions'),
      ],
      ['limited', { cidr_list: 'x' }, 'invalid CIDR blocks'],
      ['limited', { metadata: 'not json' }, 'failed to parse metadata: invalid JSON'],
      ['limited', { metadata: '{"n":1}' }, 'failed to parse metadata: values must be strings'],
      ['open', {}, 'bind_secret_id is not set on the role'],
      ['ghost', {}, 'role "ghost" does not exist'],
      ['limited', { num_uses: 'many' }, expect.stringContaining("cannot parse 'num_uses' as int")],
    ];
    for (const [role, body, message] of cases) {
      expect(await fail(c.secretIdCreate, `role/${role}/secret-id`, role, body)).toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    expect(await fail(c.customSecretId, 'role/web/custom-secret-id', 'web', {})).toMatchObject({
      message: 'missing secret_id',
    });
    expect(await fail(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', {})).toMatchObject({
      message: 'missing secret_id',
    });
    expect(await fail(c.accessorDestroy, 'role/web/secret-id-accessor/destroy', 'web', {})).toMatchObject({
      message: 'missing secret_id_accessor',
    });
    expect(await fail(c.secretIdList, 'role/limited/secret-id', 'limited', {}, 'list')).toMatchObject({
      code: 'not_found',
    });
  });

  it('stores only salted hashes of secret ids', async () => {
    const { secret_id } = await newSecretId('web');
    const dump = await sql<{ t: string }>`
      select (select coalesce(json_agg(s), '[]')::text from core_sys.approle_secret_ids s) ||
             (select coalesce(json_agg(e), '[]')::text from core_sys.event_log e) as t`.execute(
      h.database.db,
    );
    expect(dump.rows[0]?.t).toBeDefined();
    expect(dump.rows[0]?.t).not.toContain(secret_id);
  });
});

describe('login', () => {
  it('issues a token with the role settings, role_name metadata and an entity alias by role id', async () => {
    const id = await roleId('web');
    const { secret_id } = await newSecretId('web', { metadata: '{"team":"blue"}' });
    const first = await login({ role_id: id, secret_id });
    expect(first.auth).toMatchObject({
      policies: ['default', 'ops', 'web'],
      token_policies: ['default', 'ops', 'web'],
      metadata: { team: 'blue', role_name: 'web' },
      lease_duration: 3600,
      renewable: true,
    });
    const second = await login({ role_id: ` ${id} `, secret_id: ` ${secret_id} ` });
    expect(second.auth?.entity_id).toBe(first.auth?.entity_id);
    const looked = await h.call(tokenContracts.lookup, {
      mount: h.mount('auth/token/'),
      path: 'lookup',
      body: { token: first.auth?.client_token },
    });
    expect(looked.data).toMatchObject({ path: 'auth/approle/login', display_name: 'approle' });
  });

  it("answers Vault's texts for missing and bad credentials", async () => {
    const id = await roleId('web');
    const { secret_id } = await newSecretId('web');
    expect(await loginFails({})).toMatchObject({ code: 'invalid_request', message: 'missing role_id' });
    expect(await loginFails({ role_id: id })).toMatchObject({ message: 'missing secret_id' });
    expect(await loginFails({ role_id: 'nope', secret_id })).toMatchObject({
      message: 'invalid role or secret ID',
    });
    expect(await loginFails({ role_id: id, secret_id: 'wrong' })).toMatchObject({
      message: 'invalid role or secret ID',
    });
    // a secret id of another role
    const api = await roleId('api');
    expect(await loginFails({ role_id: api, secret_id })).toMatchObject({
      message: 'invalid role or secret ID',
    });
  });

  it('refuses expired secret ids', async () => {
    const id = await roleId('web');
    const { secret_id } = await newSecretId('web', { ttl: '60s' });
    const start = h.clock.now;
    try {
      h.clock.now = new Date(start.getTime() + 61_000);
      expect(await loginFails({ role_id: id, secret_id })).toMatchObject({ message: 'invalid secret id' });
      const lookup = () => call(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', { secret_id });
      expect((await lookup()).data).not.toBeNull();
      expect(await h.app.get(ApproleSecretIdSweeper).sweep()).toBeGreaterThanOrEqual(1);
      expect((await lookup()).data).toBeNull();
    } finally {
      h.clock.now = start;
    }
  });

  it("tidy/secret-id destroys expired secret ids now and answers 202 with Vault's warning", async () => {
    const { secret_id } = await newSecretId('web', { ttl: '30s' });
    const { secret_id: lasting } = await newSecretId('web');
    const lookup = (id: string) =>
      call(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', { secret_id: id });
    const start = h.clock.now;
    try {
      h.clock.now = new Date(start.getTime() + 31_000);
      expect(await call(c.tidySecretId, 'tidy/secret-id')).toMatchObject({
        status: 202,
        data: null,
        warnings: [
          "Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs.",
        ],
      });
      expect((await lookup(secret_id)).data).toBeNull();
      expect((await lookup(lasting)).data).not.toBeNull();
    } finally {
      h.clock.now = start;
    }
  });

  it('counts uses, and a refused login spends none', async () => {
    const id = await roleId('web');
    const { secret_id } = await newSecretId('web', { num_uses: 2, cidr_list: '10.0.0.0/8' });
    expect(await loginFails({ role_id: id, secret_id }, '192.168.1.1')).toMatchObject({
      message: 'source address "192.168.1.1" unauthorized by CIDR restrictions on the secret ID',
    });
    const lookup = () => call(c.secretIdLookup, 'role/web/secret-id/lookup', 'web', { secret_id });
    expect((await lookup()).data?.secret_id_num_uses).toBe(2);
    await login({ role_id: id, secret_id }, '10.0.0.1');
    expect((await lookup()).data?.secret_id_num_uses).toBe(1);
    await login({ role_id: id, secret_id }, '10.0.0.1');
    expect((await lookup()).data).toBeNull();
    expect(await loginFails({ role_id: id, secret_id }, '10.0.0.1')).toMatchObject({
      message: 'invalid role or secret ID',
    });
  });

  it('enforces token bound CIDRs (secret id ones over the role ones)', async () => {
    await writeRole('bound', { token_bound_cidrs: '10.0.0.0/8' });
    const id = await roleId('bound');
    const plain = await newSecretId('bound');
    await expect(login({ role_id: id, secret_id: plain.secret_id }, '192.168.0.1')).rejects.toMatchObject({
      code: 'permission_denied',
    });
    const narrow = await newSecretId('bound', { token_bound_cidrs: '10.1.0.0/16' });
    await expect(login({ role_id: id, secret_id: narrow.secret_id }, '10.2.0.1')).rejects.toMatchObject({
      code: 'permission_denied',
    });
    const token = (await login({ role_id: id, secret_id: narrow.secret_id }, '10.1.0.1')).auth?.client_token;
    // The token is bound to the CIDRs the login was checked against (the gateway checks each use).
    expect((await h.client.request(coreTokenResolve, { token: token ?? '' })).boundCidrs).toEqual([
      '10.1.0.0/16',
    ]);
    const roleBound = await newSecretId('bound');
    const roleToken = (await login({ role_id: id, secret_id: roleBound.secret_id }, '10.9.0.1')).auth
      ?.client_token;
    expect((await h.client.request(coreTokenResolve, { token: roleToken ?? '' })).boundCidrs).toEqual([
      '10.0.0.0/8',
    ]);
  });

  it('refuses root policies at login', async () => {
    await writeRole('rooty', { token_policies: 'root' });
    const { secret_id } = await newSecretId('rooty');
    expect(await loginFails({ role_id: await roleId('rooty'), secret_id })).toMatchObject({
      message: 'auth methods cannot create root tokens',
    });
  });

  it('refuses the internal response-wrapping policy at login', async () => {
    await writeRole('wrappy', { token_policies: 'web,response-wrapping' });
    const { secret_id } = await newSecretId('wrappy');
    expect(await loginFails({ role_id: await roleId('wrappy'), secret_id })).toMatchObject({
      code: 'invalid_request',
      message: 'cannot assign policy "response-wrapping"',
    });
  });
});

describe('deletion', () => {
  it('deletes a role with its secret ids', async () => {
    await writeRole('temp');
    const id = await roleId('temp');
    const { secret_id, secret_id_accessor } = await newSecretId('temp');
    await call(c.roleDelete, 'role/temp', 'temp', {}, 'delete');
    expect(await fail(c.roleRead, 'role/temp', 'temp', {}, 'read')).toMatchObject({ code: 'not_found' });
    expect(await loginFails({ role_id: id, secret_id })).toMatchObject({
      message: 'invalid role or secret ID',
    });
    const left = await sql<{ n: number }>`
      select count(*)::int as n from core_sys.approle_secret_ids where accessor = ${secret_id_accessor}`.execute(
      h.database.db,
    );
    expect(left.rows[0]?.n).toBe(0);
    // deleting again is not an error
    await call(c.roleDelete, 'role/temp', 'temp', {}, 'delete');
  });
});
