import {
  approleContracts as ar,
  historyContracts as hc,
  isDomainError,
  tokenContracts as tc,
  userpassContracts as up,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(60_000);

/** What a live call answered: its data, or the error code. */
type Outcome = { data: unknown } | { error: string };
interface Step {
  wal: number;
  /** path under sys/history/state (with "list:" for a LIST) -> the live answer then */
  answers: Record<string, Outcome>;
}

let h: DevCoreSysHarness;
let approle: MountInfo;
let userpass: MountInfo;
const steps: Step[] = [];
const secrets: string[] = [];

const outcome = async (p: Promise<unknown>): Promise<Outcome> => {
  try {
    return { data: ((await p) as { data?: unknown }).data };
  } catch (error) {
    if (isDomainError(error)) return { error: error.code };
    throw error;
  }
};
const at = (mount: MountInfo, contract: Contract, operation: string, path: string, params = {}, body = {}) =>
  h.call(contract, { mount, operation: operation as 'read', path, params, body });

const ROLES = ['web', 'db'];
const USERS = ['alice', 'bob'];

/** Every read and LIST this spec follows, as the live API answers them now. */
async function live(): Promise<Record<string, Outcome>> {
  const tokenMount = h.mount('auth/token/');
  const answers: Record<string, Outcome> = {
    'list:auth/approle/role': await outcome(at(approle, ar.roleList, 'list', 'role')),
    'list:auth/token/roles': await outcome(at(tokenMount, tc.roleList, 'list', 'roles')),
    'list:auth/userpass/users': await outcome(at(userpass, up.userList, 'list', 'users')),
  };
  for (const name of ROLES) {
    const params = { role_name: name };
    answers[`auth/approle/role/${name}`] = await outcome(
      at(approle, ar.roleRead, 'read', `role/${name}`, params),
    );
    answers[`auth/approle/role/${name}/role-id`] = await outcome(
      at(approle, ar.roleIdRead, 'read', `role/${name}/role-id`, params),
    );
    answers[`auth/token/roles/${name}`] = await outcome(
      at(tokenMount, tc.roleRead, 'read', `roles/${name}`, { name }),
    );
  }
  for (const name of USERS) {
    answers[`auth/userpass/users/${name}`] = await outcome(
      at(userpass, up.userRead, 'read', `users/${name}`, { username: name }),
    );
  }
  return answers;
}

const head = async (): Promise<number> => {
  const res = (await at(h.mount('sys/'), hc.treeHead, 'read', 'history/tree-head')) as { data: unknown };
  return (res.data as { tree_size: number }).tree_size;
};

async function record(): Promise<void> {
  steps.push({ wal: await head(), answers: await live() });
}

/** The history's answer for `key` (a path, "list:" for a LIST) at WAL `wal`. */
async function past(key: string, wal: number): Promise<Outcome & { raw?: unknown }> {
  const list = key.startsWith('list:');
  const path = list ? key.slice(5) : key;
  const sys = h.mount('sys/');
  try {
    const res = await h.call(list ? hc.stateList : hc.state, {
      mount: sys,
      operation: list ? 'list' : 'read',
      path: `history/state/${path}`,
      params: { path },
      query: { at: String(wal) },
    });
    const data = res.data as { state: unknown; wal: number };
    expect(data.wal).toBe(wal);
    return { data: data.state, raw: res };
  } catch (error) {
    if (isDomainError(error)) return { error: error.code };
    throw error;
  }
}

beforeAll(async () => {
  h = await startCoreSysHarness('auth-history');
  approle = await h.enableAuth('approle', 'approle');
  userpass = await h.enableAuth('userpass', 'userpass');
  const tokenMount = h.mount('auth/token/');
  const writeRole = (name: string, body: Record<string, unknown>) =>
    at(approle, ar.roleWrite, 'update', `role/${name}`, { role_name: name }, body);
  const writeTokenRole = (name: string, body: Record<string, unknown>) =>
    at(tokenMount, tc.roleWrite, 'update', `roles/${name}`, { name }, body);
  const writeUser = (name: string, body: Record<string, unknown>) =>
    at(userpass, up.userWrite, 'update', `users/${name}`, { username: name }, body);

  await record(); // nothing yet
  await writeRole('web', { token_policies: 'web', token_ttl: '1h' });
  await writeTokenRole('web', { allowed_policies: 'web', orphan: true });
  await writeUser('alice', { password: 'alice-pass-1', token_policies: 'a' });
  const sid = await at(approle, ar.secretIdCreate, 'update', 'role/web/secret-id', { role_name: 'web' });
  const secretId = ((sid as { data: unknown }).data as { secret_id: string }).secret_id;
  secrets.push(secretId, 'alice-pass-1');
  await record(); // created
  await writeRole('web', { token_ttl: '2h', secret_id_num_uses: 3 });
  await at(
    approle,
    ar.roleIdWrite,
    'update',
    'role/web/role-id',
    { role_name: 'web' },
    { role_id: 'custom-role-id' },
  );
  await writeRole('db', { bind_secret_id: false, secret_id_bound_cidrs: '10.0.0.0/8' });
  await writeTokenRole('web', { allowed_policies: 'web,ops', renewable: false });
  await writeTokenRole('db', { token_type: 'batch', orphan: true, renewable: false });
  await at(
    userpass,
    up.userPassword,
    'update',
    `users/alice/password`,
    { username: 'alice' },
    {
      password: 'alice-pass-2',
    },
  );
  await at(
    userpass,
    up.userPolicies,
    'update',
    `users/alice/policies`,
    { username: 'alice' },
    {
      token_policies: 'a,b',
    },
  );
  await writeUser('bob', { password: 'bob-pass-1' });
  secrets.push('alice-pass-2', 'bob-pass-1');
  await record(); // updated
  await at(approle, ar.roleDelete, 'delete', 'role/web', { role_name: 'web' });
  await at(tokenMount, tc.roleDelete, 'delete', 'roles/web', { name: 'web' });
  await at(userpass, up.userDelete, 'delete', 'users/alice', { username: 'alice' });
  await record(); // deleted
  await writeRole('web', { token_policies: 'again' });
  await writeTokenRole('web', { path_suffix: 'again' });
  await writeUser('alice', { password: 'alice-pass-3' });
  secrets.push('alice-pass-3');
  await record(); // re-created
  await at(approle, ar.roleDelete, 'delete', 'role/web', { role_name: 'web' });
  await at(approle, ar.roleDelete, 'delete', 'role/db', { role_name: 'db' });
  await at(tokenMount, tc.roleDelete, 'delete', 'roles/web', { name: 'web' });
  await at(tokenMount, tc.roleDelete, 'delete', 'roles/db', { name: 'db' });
  await at(userpass, up.userDelete, 'delete', 'users/alice', { username: 'alice' });
  await at(userpass, up.userDelete, 'delete', 'users/bob', { username: 'bob' });
  await record(); // all gone: the LISTs 404 again
});

afterAll(async () => {
  await h?.close();
});

describe('history: state at a time of auth methods (approle, token roles, userpass)', () => {
  it('answers at every step what the live reads and LISTs answered then', async () => {
    expect(steps).toHaveLength(6);
    for (const [i, step] of steps.entries()) {
      for (const [key, answer] of Object.entries(step.answers)) {
        const { raw: _raw, ...then } = await past(key, step.wal);
        expect({ step: i, key, then }).toEqual({ step: i, key, then: answer });
      }
    }
    // the script did go through existing and absent states
    expect(steps[2]?.answers['auth/approle/role/web/role-id']).toEqual({
      data: { role_id: 'custom-role-id' },
    });
    expect(steps[3]?.answers['auth/userpass/users/alice']).toEqual({ error: 'not_found' });
    expect(steps[0]?.answers['list:auth/token/roles']).toEqual({ error: 'not_found' });
  });

  it('never answers a secret id, a password or its hash', async () => {
    const last = steps[steps.length - 1];
    for (const step of steps) {
      for (const key of Object.keys(last?.answers ?? {})) {
        const text = JSON.stringify(await past(key, step.wal));
        for (const secret of secrets) expect(text).not.toContain(secret);
        expect(text).not.toMatch(/scrypt|password|"secret_id"|hmac/i);
      }
    }
  });

  it('has no history of a LIST of one role, nor of secret ids', async () => {
    const wal = steps[2]?.wal ?? 0;
    expect(await past('list:auth/approle/role/web', wal)).toEqual({ error: 'invalid_request' });
    expect(await past('auth/approle/role/web/secret-id', wal)).toEqual({ error: 'invalid_request' });
  });
});
