import { KeyringClient } from '@coffer/barrier';
import { coreMountTable, sysContracts } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { SealCoordinator } from './seal-coordinator';
import { SealService } from './seal.service';
import { CLUSTER_SECRET, CoreSysHarness, type InitResult } from '../test-support/core-sys-harness';

// Start-up, fail-over (lock retry) and teardown of several replicas take a few seconds under load.
jest.setTimeout(30_000);

describe('seal with two core-sys replicas (leader + follower)', () => {
  let h: CoreSysHarness;
  let init: InitResult;
  let engine: KeyringClient;

  const seal = (i: number) => h.replica(i).app.get(SealService);
  const coordinator = (i: number) => h.replica(i).app.get(SealCoordinator);

  beforeAll(async () => {
    h = await CoreSysHarness.start('seal_replicas', 2);
    engine = new KeyringClient({
      transport: h.client,
      clusterSecret: CLUSTER_SECRET,
      service: 'kv',
      refreshIntervalMs: 0,
    });
    await engine.start();
  }, 30_000);
  afterAll(async () => {
    engine?.stop();
    await h?.close();
  }, 30_000);

  it('elects exactly one leader: the first replica to start', () => {
    expect(coordinator(0).isLeader).toBe(true);
    expect(coordinator(1).isLeader).toBe(false);
  });

  it('unseal through the leader lets the follower fetch the keyring', async () => {
    init = await h.initialise(3, 2);
    // progress accumulates on the leader whichever replica the client's connection favours
    expect((await h.unseal([init.keys[0] ?? ''])).progress).toBe(1);
    expect((await h.unseal([init.keys[1] ?? ''])).sealed).toBe(false);
    expect(seal(0).isUnsealed()).toBe(true);
    await waitFor(() => seal(1).isUnsealed(), { message: 'follower unsealed' });
    expect(seal(1).activeTerm()).toBe(seal(0).activeTerm());
  });

  it('serves requests from both replicas and the keyring to engines', async () => {
    for (let i = 0; i < 6; i++) {
      const table = await h.client.request(coreMountTable, {});
      expect(table.mounts.length).toBeGreaterThanOrEqual(4);
    }
    await waitFor(() => engine.refresh(), { message: 'engine keyring' });
    expect(engine.barrier.keyStatus().term).toBe(1);
  });

  it('propagates a rotation to the follower and engines', async () => {
    await h.sys(sysContracts.rotate, { operation: 'update', path: 'rotate' });
    await waitFor(() => seal(1).activeTerm() === 2, { message: 'follower re-keyed' });
    await waitFor(async () => (await engine.refresh()) && engine.barrier.keyStatus().term === 2, {
      message: 'engine re-keyed',
    });
  });

  it('propagates a seal to the follower', async () => {
    await h.sys(sysContracts.seal, { operation: 'update', path: 'seal' });
    expect(seal(0).isUnsealed()).toBe(false);
    await waitFor(() => !seal(1).isUnsealed(), { message: 'follower sealed' });
    await waitFor(async () => !(await engine.refresh()), { message: 'engine sealed' });
    await h.unseal(init.keys_base64.slice(1, 3));
    await waitFor(() => seal(1).isUnsealed() && seal(1).activeTerm() === 2, {
      message: 'follower unsealed again',
    });
  });

  it('fails over to the follower, which keeps serving unsealed', async () => {
    await h.stopReplica(0);
    await waitFor(() => coordinator(1).isLeader, { timeoutMs: 10_000, message: 'follower became leader' });
    const status = (await h.sys(sysContracts.sealStatus, { operation: 'read', path: 'seal-status' })).body;
    expect(status).toMatchObject({ initialized: true, sealed: false, t: 2, n: 3 });
    await waitFor(() => engine.refresh(), { message: 'engine keyring from the new leader' });
    // the new leader can rotate: it reads the root key through the barrier it took over
    await h.sys(sysContracts.rotate, { operation: 'update', path: 'rotate' });
    expect(seal(1).activeTerm()).toBe(3);
  });
});
