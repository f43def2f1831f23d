import {
  coreMountTable,
  invalidation,
  sysContracts,
  tokenContracts,
  userpassContracts,
  type Invalidation,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { MountsService } from './mounts.service';
import { decideRemountStart } from './remount.decider';
import { RemountService } from './remount.service';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let invalidations: Invalidation[];

beforeAll(async () => {
  h = await startCoreSysHarness('remount');
  invalidations = await h.record(invalidation);
});

afterAll(async () => {
  await h?.close();
});

const remount = (from: string, to: string) =>
  h.call(sysContracts.remount, { mount: h.mount('sys/'), path: 'remount', body: { from, to } });
const status = (id: string) =>
  h.call(sysContracts.remountStatus, {
    mount: h.mount('sys/'),
    operation: 'read',
    path: `remount/status/${id}`,
    params: { migration_id: id },
  });
const finished = async (id: string): Promise<string> => {
  let last = '';
  await waitFor(
    async () => {
      last = (await status(id)).data?.migration_info.status ?? '';
      return last !== 'in-progress';
    },
    { message: `migration ${id}` },
  );
  return last;
};
const table = async () => (await h.client.request(coreMountTable, {})).mounts;

describe('sys/remount', () => {
  it('moves a secrets engine: same uuid (its data), new path, broadcast, status success', async () => {
    const before = (await table()).find((m) => m.path === 'secret/');
    const seen = invalidations.filter((i) => i.kind === 'mounts').length;
    const res = await remount('secret', 'moved-secret');
    expect(res).toMatchObject({
      kind: 'injected',
      data: { migration_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      warnings: [expect.stringContaining('Mount move has been queued')],
    });
    const id = res.data?.migration_id ?? '';
    expect(await finished(id)).toBe('success');
    expect((await status(id)).data).toEqual({
      migration_id: id,
      migration_info: { source_mount: 'secret/', target_mount: 'moved-secret/', status: 'success' },
    });
    const after = await table();
    expect(after.find((m) => m.path === 'secret/')).toBeUndefined();
    expect(after.find((m) => m.path === 'moved-secret/')).toMatchObject({ uuid: before?.uuid, type: 'kv' });
    expect(invalidations.filter((i) => i.kind === 'mounts').length).toBeGreaterThan(seen);
  });

  it('answers 404 for an unknown migration id and Vault texts for bad moves', async () => {
    expect(
      await h.fail(sysContracts.remountStatus, {
        mount: h.mount('sys/'),
        operation: 'read',
        path: 'remount/status/nope',
        params: { migration_id: 'nope' },
      }),
    ).toMatchObject({ code: 'not_found' });
    expect(
      await h.fail(sysContracts.remount, {
        mount: h.mount('sys/'),
        path: 'remount',
        body: { from: 'moved-secret', to: 'cubbyhole' },
      }),
    ).toMatchObject({ code: 'invalid_request', message: 'cannot remount to destination cubbyhole/' });
    expect(
      await h.fail(sysContracts.remount, {
        mount: h.mount('sys/'),
        path: 'remount',
        body: { from: 'moved-secret', to: 'moved-secret/inner' },
      }),
    ).toMatchObject({ code: 'invalid_request', message: 'path already in use at "moved-secret/"' });
    expect(
      await h.fail(sysContracts.remount, {
        mount: h.mount('sys/'),
        path: 'remount',
        body: { from: 'sys', to: 'system' },
      }),
    ).toMatchObject({ code: 'invalid_request', message: 'cannot remount "sys/"' });
  });

  it('moves an auth method: its users stay, the tokens it issued are revoked', async () => {
    const up: MountInfo = await h.enableAuth('userpass', 'userpass');
    await h.call(userpassContracts.userWrite, {
      mount: up,
      operation: 'create',
      path: 'users/ann',
      params: { username: 'ann' },
      body: { password: 'pw-ann' },
    });
    const login = (mount: MountInfo) =>
      h.call(userpassContracts.login, {
        mount,
        path: 'login/ann',
        params: { username: 'ann' },
        body: { password: 'pw-ann' },
      });
    const token = (await login(up)).auth?.client_token ?? '';
    const lookup = { mount: h.mount('auth/token/'), path: 'lookup', body: { token } };
    expect((await h.call(tokenContracts.lookup, lookup)).data).toMatchObject({
      path: 'auth/userpass/login/ann',
    });

    const res = await remount('auth/userpass', 'auth/people');
    expect(await finished(res.data?.migration_id ?? '')).toBe('success');
    expect(await h.fail(tokenContracts.lookup, lookup)).toMatchObject({ code: 'forbidden' });
    const moved = (await table()).find((m) => m.path === 'auth/people/');
    expect(moved).toMatchObject({ uuid: up.uuid, type: 'userpass' });
    const again = await login({ ...up, path: 'auth/people/' });
    expect(again.auth?.client_token).toEqual(expect.any(String));
  });

  it('the seal leader finishes a move whose process died after starting it', async () => {
    await h.call(sysContracts.mountEnable, {
      mount: h.mount('sys/'),
      path: 'mounts/orphaned',
      params: { path: 'orphaned' },
      body: { type: 'kv' },
    });
    // what a replica dying right after answering leaves: the start, and nobody finishing it
    const id = 'interrupted-move';
    await h.app
      .get(MountsService)
      .decideOnTable((t) => decideRemountStart(t, [], '', { from: 'orphaned', to: 'adopted' }, id).event);
    expect((await status(id)).data?.migration_info.status).toBe('in-progress');
    await h.app.get(RemountService).resumeInterrupted(0);
    expect((await status(id)).data?.migration_info).toEqual({
      source_mount: 'orphaned/',
      target_mount: 'adopted/',
      status: 'success',
    });
    expect((await table()).find((m) => m.path === 'adopted/')).toMatchObject({ type: 'kv' });
  });
});
