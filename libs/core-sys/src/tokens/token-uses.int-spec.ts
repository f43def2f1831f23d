import { randomUUID } from 'node:crypto';
import {
  coreMountTable,
  coreTokenResolve,
  tokenContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { SealService } from '../seal/seal.service';
import { CoreSysHarness } from '../test-support/core-sys-harness';

jest.setTimeout(60_000);

/**
 * A use-limited token hit by many requests at once, served by two replicas (NATS spreads the
 * resolves over both): every use is counted exactly once and the surplus is refused as an
 * invalid token, never as an internal error.
 */
describe('num_uses under contention, two replicas', () => {
  let h: CoreSysHarness;
  let root: CallerContext;
  let tokenMount: MountInfo;

  beforeAll(async () => {
    h = await CoreSysHarness.start('token_uses', 2);
    const { rootToken } = await h.replica(0).app.get(SealService).devBootstrap({});
    await waitFor(() => h.replica(1).app.get(SealService).isUnsealed(), { message: 'follower unsealed' });
    const resolved = await h.client.request(coreTokenResolve, { token: rootToken });
    root = {
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      sudo: true,
      root: true,
      accessor: resolved.accessor,
      tokenRef: resolved.tokenRef,
      policies: resolved.policies,
    };
    const { mounts } = await h.client.request(coreMountTable, {});
    const found = mounts.find((m) => m.path === 'auth/token/');
    if (!found) throw new Error('no token mount');
    tokenMount = found;
  }, 60_000);
  afterAll(() => h?.close(), 30_000);

  async function tokenWithUses(numUses: number): Promise<string> {
    const res = await h.call(
      tokenContracts.create,
      { mount: tokenMount, path: 'create', body: { num_uses: numUses, policies: ['default'] } },
      root,
    );
    if (!res.auth) throw new Error('no auth block');
    return res.auth.client_token;
  }

  it('answers exactly num_uses resolves and refuses the rest as invalid', async () => {
    const token = await tokenWithUses(50);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => h.client.request(coreTokenResolve, { token })),
    );
    const codes = results.map((r) =>
      r.status === 'fulfilled' ? 'ok' : String((r.reason as { code?: unknown }).code),
    );
    expect(codes.filter((c) => c === 'ok')).toHaveLength(50);
    expect(codes.filter((c) => c !== 'ok')).toEqual(Array.from({ length: 50 }, () => 'invalid_token'));
    await expect(h.client.request(coreTokenResolve, { token })).rejects.toMatchObject({
      code: 'invalid_token',
    });
  });
});
