import { randomUUID } from 'node:crypto';
import {
  approleContracts as c,
  coreMountTable,
  sysContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { SealService } from '../seal/seal.service';
import { CoreSysHarness, ROOT_CALLER } from '../test-support/core-sys-harness';

jest.setTimeout(120_000);

/**
 * Secret ids hit by concurrent logins, served by two core-sys replicas on one database (NATS
 * spreads the logins over both): each use is spent exactly once, the surplus is refused with
 * Vault's text, never with an internal error.
 */
describe('secret id num_uses under contention, two replicas', () => {
  let h: CoreSysHarness;
  let ar: MountInfo;
  let roleId = '';
  const caller = (): CallerContext => ({
    ...ROOT_CALLER,
    requestId: randomUUID(),
    clientAddress: '127.0.0.1',
  });

  beforeAll(async () => {
    h = await CoreSysHarness.start('approle_races', 2);
    await h.replica(0).app.get(SealService).devBootstrap({});
    await waitFor(() => h.replica(1).app.get(SealService).isUnsealed(), { message: 'follower unsealed' });
    await h.sys(sysContracts.authEnable, {
      operation: 'update',
      path: 'auth/approle',
      params: { path: 'approle' },
      body: { type: 'approle' },
    });
    const { mounts } = await h.client.request(coreMountTable, {});
    const found = mounts.find((m) => m.path === 'auth/approle/');
    if (!found) throw new Error('no approle mount');
    ar = found;
    const role = { mount: ar, path: 'role/race', params: { role_name: 'race' } };
    await h.call(
      c.roleWrite,
      { ...role, operation: 'create', body: { token_policies: 'default' } },
      caller(),
    );
    const read = await h.call(
      c.roleIdRead,
      { ...role, operation: 'read', path: 'role/race/role-id' },
      caller(),
    );
    roleId = read.data?.role_id ?? '';
  }, 120_000);
  afterAll(() => h?.close(), 30_000);

  async function secretId(numUses: number): Promise<string> {
    const res = await h.call(
      c.secretIdCreate,
      { mount: ar, path: 'role/race/secret-id', params: { role_name: 'race' }, body: { num_uses: numUses } },
      caller(),
    );
    return res.data?.secret_id ?? '';
  }

  async function race(secret: string, logins: number): Promise<string[]> {
    const results = await Promise.allSettled(
      Array.from({ length: logins }, () =>
        h.call(c.login, { mount: ar, path: 'login', body: { role_id: roleId, secret_id: secret } }, caller()),
      ),
    );
    return results.map((r) =>
      r.status === 'fulfilled'
        ? r.value.auth?.client_token
          ? 'ok'
          : 'no token'
        : String((r.reason as { message?: unknown }).message),
    );
  }

  it('logs in exactly once with a num_uses=1 secret id used by 10 concurrent logins (50 runs)', async () => {
    for (let run = 0; run < 50; run++) {
      const outcomes = await race(await secretId(1), 10);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'ok')).toEqual(
        Array.from({ length: 9 }, () => 'invalid role or secret ID'),
      );
    }
  });

  it('logs in exactly num_uses times', async () => {
    const secret = await secretId(3);
    const outcomes = await race(secret, 12);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o !== 'ok')).toEqual(
      Array.from({ length: 9 }, () => 'invalid role or secret ID'),
    );
  });
});
