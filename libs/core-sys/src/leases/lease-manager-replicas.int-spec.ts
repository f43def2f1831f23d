import { leaseContracts } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness, ROOT_CALLER } from '../test-support/core-sys-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';
import { SealService } from '../seal/seal.service';
import { LeaseManager } from './lease-manager';

// Start-up, fail-over (lock retry) and teardown of several replicas take a few seconds under load.
jest.setTimeout(60_000);

describe('the lease manager with two core-sys replicas, across a restart', () => {
  let h: CoreSysHarness;
  let engine: LeaseTestEngine;

  const manager = (i: number) => h.replica(i).app.get(LeaseManager);
  const activeOf = (indexes: number[]) => indexes.filter((i) => manager(i).active);
  const advance = (seconds: number) => {
    h.clock.now = new Date(h.clock.now.getTime() + seconds * 1000);
  };
  const exists = async (leaseId: string) => {
    try {
      await h.sys(leaseContracts.lookup, {
        operation: 'update',
        path: 'leases/lookup',
        body: { lease_id: leaseId },
      });
      return true;
    } catch {
      return false;
    }
  };
  const revokeCalls = (leaseId: string) => engine.revoked.filter((r) => r.lease_id === leaseId).length;

  beforeAll(async () => {
    h = await CoreSysHarness.start('lease_replicas', 2);
    engine = new LeaseTestEngine(h.client);
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    await waitFor(() => h.replica(1).app.get(SealService).isUnsealed(), { message: 'follower unsealed' });
  }, 60_000);
  afterAll(async () => {
    engine?.stop();
    await h?.close();
  }, 30_000);

  it('runs exactly one active manager', () => {
    expect(activeOf([0, 1])).toEqual([0]);
  });

  it('revokes an expired lease exactly once', async () => {
    const lease = await registerTestLease(h.client, ROOT_CALLER, 'dyn/creds/one', { ttl: 5 });
    advance(10);
    await waitFor(async () => !(await exists(lease.lease_id)), { message: 'revoked' });
    expect(revokeCalls(lease.lease_id)).toBe(1);
  });

  it('hands over when the active replica stops, and a restarted replica stays standby', async () => {
    const lease = await registerTestLease(h.client, ROOT_CALLER, 'dyn/creds/two', { ttl: 30 });
    await h.stopReplica(0);
    await waitFor(() => manager(1).active, { timeoutMs: 15_000, message: 'replica 1 takes over' });
    await h.addReplica(); // replica 2: the restarted process
    await waitFor(() => h.replica(2).app.get(SealService).isUnsealed(), { message: 'new replica unsealed' });
    expect(activeOf([1, 2])).toEqual([1]);
    advance(60);
    await waitFor(async () => !(await exists(lease.lease_id)), { timeoutMs: 15_000, message: 'revoked' });
    expect(revokeCalls(lease.lease_id)).toBe(1);
    expect(activeOf([1, 2])).toEqual([1]);
  });

  it('renew, revoke and expiry reach the engine after the active replica restarts, each once', async () => {
    const secret = { ttl: 30, renewable: true, internal: { user: 'before-restart' } };
    const expiring = await Promise.all(
      ['a', 'b', 'c'].map((n) => registerTestLease(h.client, ROOT_CALLER, `dyn/creds/exp-${n}`, secret)),
    );
    const renewed = await registerTestLease(h.client, ROOT_CALLER, 'dyn/creds/renewed', secret);
    const revoked = await registerTestLease(h.client, ROOT_CALLER, 'dyn/creds/revoked', secret);
    const active = activeOf([1, 2]);
    expect(active).toHaveLength(1);
    const [was] = active;
    if (was === undefined) throw new Error('no active manager');
    await h.stopReplica(was);
    const survivor = was === 1 ? 2 : 1;
    await waitFor(() => manager(survivor).active, { timeoutMs: 15_000, message: 'the standby takes over' });
    await h.addReplica(); // replica 3: the restarted process
    await waitFor(() => h.replica(3).app.get(SealService).isUnsealed(), { message: 'new replica unsealed' });
    expect(activeOf([survivor, 3])).toEqual([survivor]);

    const renewal = await h.sys(leaseContracts.renew, {
      operation: 'update',
      path: 'leases/renew',
      body: { lease_id: renewed.lease_id, increment: 300 },
    });
    expect(renewal).toMatchObject({ lease: { lease_id: renewed.lease_id, renewable: true } });
    expect(engine.renewed.filter((r) => r.lease_id === renewed.lease_id)).toEqual([
      expect.objectContaining({ internal: { user: 'before-restart' } }),
    ]);
    await h.sys(leaseContracts.revoke, {
      operation: 'update',
      path: 'leases/revoke',
      body: { lease_id: revoked.lease_id },
    });
    expect(revokeCalls(revoked.lease_id)).toBe(1);
    expect(await exists(revoked.lease_id)).toBe(false);

    advance(60);
    for (const lease of expiring) {
      await waitFor(async () => !(await exists(lease.lease_id)), { timeoutMs: 15_000, message: 'expired' });
    }
    expect(expiring.map((l) => revokeCalls(l.lease_id))).toEqual([1, 1, 1]);
    // the renewal moved its expiry past the old one
    expect(await exists(renewed.lease_id)).toBe(true);
    expect(revokeCalls(renewed.lease_id)).toBe(0);

    advance(600);
    await waitFor(async () => !(await exists(renewed.lease_id)), {
      timeoutMs: 15_000,
      message: 'renewed expired',
    });
    expect(revokeCalls(renewed.lease_id)).toBe(1);
    expect(revokeCalls(revoked.lease_id)).toBe(1);
    const all = engine.revokedIds();
    expect(new Set(all).size).toBe(all.length);
    expect(activeOf([survivor, 3])).toEqual([survivor]);
  });
});
