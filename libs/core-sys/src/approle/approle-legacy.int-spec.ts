import { approleContracts as c, type Contract, type MountInfo } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { ApproleRoleEventLog } from './approle.projection';

jest.setTimeout(30_000);

/** path_role.go's backwards-compat `policies` / `period`, and tidy/secret-id's dangling entries. */

let h: DevCoreSysHarness;
let ar: MountInfo;

beforeAll(async () => {
  h = await startCoreSysHarness('approle-legacy');
  ar = await h.enableAuth('approle', 'approle');
});

afterAll(async () => {
  await h?.close();
});

type Op = 'create' | 'update' | 'read' | 'delete';
const call = <C extends Contract>(
  contract: C,
  path: string,
  role: string,
  body = {},
  operation: Op = 'update',
) => h.call(contract, { mount: ar, operation, path, params: { role_name: role }, body });
const writeRole = (name: string, body: Record<string, unknown>, op: Op = 'create') =>
  call(c.roleWrite, `role/${name}`, name, body, op);
const readRole = async (name: string) => (await call(c.roleRead, `role/${name}`, name, {}, 'read')).data;

describe("deprecated policies / period on role reads (Vault's backwards compat data)", () => {
  it('echoes them while set through the deprecated names, mirroring token_policies / token_period', async () => {
    await writeRole('old', { policies: 'a,b', period: '1h' });
    expect(await readRole('old')).toMatchObject({
      token_policies: ['a', 'b'],
      policies: ['a', 'b'],
      token_period: 3600,
      period: 3600,
    });
    // both names given: the deprecated one mirrors the new one
    await writeRole(
      'old',
      { token_policies: 'c', policies: 'ignored', token_period: 60, period: 5 },
      'update',
    );
    expect(await readRole('old')).toMatchObject({
      token_policies: ['c'],
      policies: ['c'],
      token_period: 60,
      period: 60,
    });
    // the new name alone clears the deprecated one, which is then absent from reads
    await writeRole('old', { token_policies: 'd', token_period: 0 }, 'update');
    const data = await readRole('old');
    expect(data).toMatchObject({ token_policies: ['d'], token_period: 0 });
    expect(data).not.toHaveProperty('policies');
    expect(data).not.toHaveProperty('period');
  });

  it('a role written with the new names never shows them; other writes keep them', async () => {
    await writeRole('new', { token_policies: 'x', token_period: '2m' });
    const data = await readRole('new');
    expect(data).not.toHaveProperty('policies');
    expect(data).not.toHaveProperty('period');
    await writeRole('kept', { policies: 'p' });
    await writeRole('kept', { secret_id_num_uses: 2 }, 'update');
    expect(await readRole('kept')).toMatchObject({ policies: ['p'], token_policies: ['p'] });
  });

  it('the policies and period field routes follow the same rules', async () => {
    await writeRole('fields', { token_policies: 'a' });
    await call(c.roleFieldWrite, 'role/fields/policies', 'fields', { policies: 'z' });
    expect((await call(c.roleFieldRead, 'role/fields/policies', 'fields', {}, 'read')).data).toEqual({
      token_policies: ['z'],
      policies: ['z'],
    });
    await call(c.roleFieldWrite, 'role/fields/period', 'fields', { period: 30 });
    expect((await call(c.roleFieldRead, 'role/fields/period', 'fields', {}, 'read')).data).toEqual({
      token_period: 30,
      period: 30,
    });
    await call(c.roleFieldWrite, 'role/fields/period', 'fields', { token_period: 40 });
    expect((await call(c.roleFieldRead, 'role/fields/period', 'fields', {}, 'read')).data).toEqual({
      token_period: 40,
    });
    await call(c.roleFieldDelete, 'role/fields/policies', 'fields', {}, 'delete');
    expect((await call(c.roleFieldRead, 'role/fields/policies', 'fields', {}, 'read')).data).toEqual({
      token_policies: [],
    });
  });
});

describe('tidy/secret-id removes dangling secret ids', () => {
  it('destroys the secret ids whose role is gone, and keeps the others', async () => {
    await writeRole('gone', { token_policies: 'default' });
    await writeRole('stays', { token_policies: 'default' });
    const orphan = await call(c.secretIdCreate, 'role/gone/secret-id', 'gone', {});
    const kept = await call(c.secretIdCreate, 'role/stays/secret-id', 'stays', {});
    // a role delete cut short after the role went but before its secret ids did
    const roles = h.app.get(ApproleRoleEventLog);
    await roles.append({ mountUuid: ar.uuid, roleName: 'gone' }, 1, [
      { type: 'ApproleRoleDeleted', data: { deletedAt: Date.now() } },
    ]);
    const res = await h.call(c.tidySecretId, { mount: ar, path: 'tidy/secret-id' });
    expect(res).toMatchObject({ status: 202 });

    // recreating the role does not bring the orphan back
    await writeRole('gone', { token_policies: 'default' });
    const lookup = (role: string, accessor: unknown) =>
      h.call(c.accessorLookup, {
        mount: ar,
        path: `role/${role}/secret-id-accessor/lookup`,
        params: { role_name: role },
        body: { secret_id_accessor: accessor },
      });
    await expect(lookup('gone', orphan.data?.secret_id_accessor)).rejects.toBeDefined();
    expect((await lookup('stays', kept.data?.secret_id_accessor)).data).toMatchObject({
      secret_id_accessor: kept.data?.secret_id_accessor,
    });
  });
});
