import { approleContracts as c, type MountInfo } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { approleCalls, type ApproleOp } from '../test-support/approle-calls';

jest.setTimeout(30_000);

/** AppRole's per-field role routes (role/:role_name/<field>), as path_role.go. */

let h: DevCoreSysHarness;
let ar: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('approle-fields');
  ar = await h.enableAuth('approle', 'approle');
});

afterAll(async () => {
  await h?.close();
});

type Op = ApproleOp;
const { req, call, fail, writeRole, roleId } = approleCalls(
  () => h,
  () => ar,
);

describe('role fields', () => {
  const field = (name: string, f: string, op: Op, body: Record<string, unknown> = {}) =>
    call(
      op === 'read' ? c.roleFieldRead : op === 'delete' ? c.roleFieldDelete : c.roleFieldWrite,
      `role/${name}/${f}`,
      name,
      body,
      op,
    );
  const fieldFails = (name: string, f: string, body: Record<string, unknown>) =>
    fail(c.roleFieldWrite, `role/${name}/${f}`, name, body, 'update');
  const roleData = async (name: string) => (await call(c.roleRead, `role/${name}`, name, {}, 'read')).data;

  it('reads, sets and resets each field alone, as path_role.go', async () => {
    await writeRole('fields', { token_policies: 'a', secret_id_num_uses: 3, secret_id_ttl: '10m' });
    const before = await roleData('fields');
    const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
      ['policies', { token_policies: 'b,c' }, { token_policies: ['b', 'c'] }, { token_policies: [] }],
      [
        'secret-id-num-uses',
        { secret_id_num_uses: '7' },
        { secret_id_num_uses: 7 },
        { secret_id_num_uses: 0 },
      ],
      ['secret-id-ttl', { secret_id_ttl: '1h' }, { secret_id_ttl: 3600 }, { secret_id_ttl: 0 }],
      [
        'bind-secret-id',
        { bind_secret_id: false, secret_id_bound_cidrs: '10.0.0.0/8' },
        { bind_secret_id: false },
        { bind_secret_id: true },
      ],
    ];
    await writeRole('fields', { secret_id_bound_cidrs: '10.0.0.0/8' }, 'update');
    for (const [f, body, set, reset] of cases) {
      expect(await field('fields', f, 'update', body)).toMatchObject({ data: null });
      expect((await field('fields', f, 'read')).data).toEqual(set);
      expect(await field('fields', f, 'delete')).toMatchObject({ data: null });
      expect((await field('fields', f, 'read')).data).toEqual(reset);
    }
    // the other fields and the role id never moved
    const after = await roleData('fields');
    expect(after).toMatchObject({ token_ttl: before?.token_ttl, secret_id_bound_cidrs: ['10.0.0.0/8'] });
    expect(await roleId('fields')).not.toBe('');
  });

  it("token-num-uses, token-ttl and token-max-ttl, with Vault's TTL-order texts", async () => {
    await writeRole('tok', { token_ttl: '10m', token_max_ttl: '1h' });
    await field('tok', 'token-num-uses', 'update', { token_num_uses: 4 });
    expect((await field('tok', 'token-num-uses', 'read')).data).toEqual({ token_num_uses: 4 });
    await field('tok', 'token-num-uses', 'delete');
    expect((await field('tok', 'token-num-uses', 'read')).data).toEqual({ token_num_uses: 0 });
    expect(await fieldFails('tok', 'token-ttl', { token_ttl: '2h' })).toMatchObject({
      message: 'token_ttl should not be greater than token_max_ttl',
    });
    expect(await fieldFails('tok', 'token-max-ttl', { token_max_ttl: '5m' })).toMatchObject({
      message: 'token_max_ttl should be greater than or equal to token_ttl',
    });
    expect(await fieldFails('tok', 'token-ttl', {})).toMatchObject({ message: 'missing token_ttl' });
    expect(await fieldFails('tok', 'token-max-ttl', {})).toMatchObject({ message: 'missing token_max_ttl' });
    expect(await fieldFails('tok', 'token-num-uses', {})).toMatchObject({
      message: 'missing token_num_uses',
    });
    await field('tok', 'token-ttl', 'update', { token_ttl: '20m' });
    expect((await field('tok', 'token-ttl', 'read')).data).toEqual({ token_ttl: 1200 });
    await field('tok', 'token-max-ttl', 'delete');
    expect((await field('tok', 'token-max-ttl', 'read')).data).toEqual({ token_max_ttl: 0 });
    await field('tok', 'token-ttl', 'delete');
    expect((await field('tok', 'token-ttl', 'read')).data).toEqual({ token_ttl: 0 });
  });

  it('secret-id-bound-cidrs and token-bound-cidrs: set, read, clear; absent changes nothing', async () => {
    await writeRole('cidrs');
    await field('cidrs', 'secret-id-bound-cidrs', 'update', { secret_id_bound_cidrs: '10.0.0.0/8' });
    expect((await field('cidrs', 'secret-id-bound-cidrs', 'read')).data).toEqual({
      secret_id_bound_cidrs: ['10.0.0.0/8'],
    });
    expect(await field('cidrs', 'secret-id-bound-cidrs', 'update', {})).toMatchObject({ data: null });
    expect((await field('cidrs', 'secret-id-bound-cidrs', 'read')).data).toEqual({
      secret_id_bound_cidrs: ['10.0.0.0/8'],
    });
    expect(await fieldFails('cidrs', 'secret-id-bound-cidrs', { secret_id_bound_cidrs: [] })).toMatchObject({
      message: 'missing bound_cidr_list',
    });
    await field('cidrs', 'secret-id-bound-cidrs', 'delete');
    expect((await field('cidrs', 'secret-id-bound-cidrs', 'read')).data).toEqual({
      secret_id_bound_cidrs: [],
    });
    await field('cidrs', 'token-bound-cidrs', 'update', { token_bound_cidrs: ['192.168.0.0/16'] });
    expect((await field('cidrs', 'token-bound-cidrs', 'read')).data).toEqual({
      token_bound_cidrs: ['192.168.0.0/16'],
    });
    await field('cidrs', 'token-bound-cidrs', 'delete');
    expect((await field('cidrs', 'token-bound-cidrs', 'read')).data).toEqual({ token_bound_cidrs: [] });
  });

  it('period: token_period or the deprecated period, capped by the mount max lease TTL', async () => {
    await writeRole('per');
    await field('per', 'period', 'update', { token_period: '1h' });
    expect((await field('per', 'period', 'read')).data).toEqual({ token_period: 3600 });
    await field('per', 'period', 'update', { period: '2h' });
    // the deprecated name is echoed while set (Vault's pathRolePeriodRead)
    expect((await field('per', 'period', 'read')).data).toEqual({ token_period: 7200, period: 7200 });
    expect(await fieldFails('per', 'period', {})).toMatchObject({ message: 'missing period' });
    expect(await fieldFails('per', 'period', { period: '800h' })).toMatchObject({
      message: 'period of "800h0m0s" is greater than the backend\'s maximum lease TTL of "768h0m0s"',
    });
    await field('per', 'period', 'delete');
    expect((await field('per', 'period', 'read')).data).toEqual({ token_period: 0 });
  });

  it('the deprecated policies alias sets the token policies', async () => {
    await writeRole('alias');
    await field('alias', 'policies', 'update', { policies: 'x' });
    expect((await field('alias', 'policies', 'read')).data).toEqual({
      token_policies: ['x'],
      policies: ['x'],
    });
  });

  it("answers Vault's texts for a missing or bad field, and 404 without the role", async () => {
    await writeRole('strict');
    expect(await fieldFails('strict', 'secret-id-num-uses', {})).toMatchObject({
      code: 'invalid_request',
      message: 'missing secret_id_num_uses',
    });
    expect(await fieldFails('strict', 'policies', { secret_id_ttl: 5 })).toMatchObject({
      message: 'missing token_policies',
    });
    expect(await fieldFails('strict', 'secret-id-ttl', {})).toMatchObject({
      message: 'missing secret_id_ttl',
    });
    expect(await fieldFails('strict', 'bind-secret-id', {})).toMatchObject({
      message: 'missing bind_secret_id',
    });
    expect(await fieldFails('strict', 'secret-id-num-uses', { secret_id_num_uses: -1 })).toMatchObject({
      message: 'secret_id_num_uses cannot be negative',
    });
    expect(await fieldFails('strict', 'bind-secret-id', { bind_secret_id: false })).toMatchObject({
      message: 'at least one constraint should be enabled on the role',
    });
    expect((await roleData('strict'))?.bind_secret_id).toBe(true);
    expect(await h.fail(c.roleFieldRead, req('role/ghost/secret-id-ttl', 'ghost', {}, 'read'))).toMatchObject(
      { code: 'not_found' },
    );
    expect(await fieldFails('ghost', 'secret-id-ttl', { secret_id_ttl: 5 })).toMatchObject({
      code: 'not_found',
    });
    expect(await field('ghost', 'secret-id-ttl', 'delete')).toMatchObject({ data: null });
  });
});
