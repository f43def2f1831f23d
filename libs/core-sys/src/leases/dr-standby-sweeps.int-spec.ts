import { leaseContracts, tokenContracts, tokenRevoked, type Contract } from '@coffer/contracts';
import {
  replicationModes,
  replicationModesChanged,
  type ReplicationModes,
} from '@coffer/contracts/replication';
import { waitFor } from '@coffer/testing';
import type { Subscription } from '@coffer/transport';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';
import { TokenSweeper } from '../tokens/token-sweeper';
import { LeaseManager } from './lease-manager';

jest.setTimeout(60_000);

/**
 * Vault's DR secondaries run no expiration: the primary revokes what expires and streams it. A
 * core-sys whose replication service says "DR secondary" sweeps nothing, and resumes as soon as
 * the modes broadcast says it was promoted.
 */
let h: DevCoreSysHarness;
let engine: LeaseTestEngine;
let replication: Subscription;
let dr: ReplicationModes['dr'] = 'secondary';

beforeAll(async () => {
  h = await startCoreSysHarness('dr_standby_sweeps');
  engine = new LeaseTestEngine(h.client);
  replication = h.client.serve(replicationModes, 'replication', () =>
    Promise.resolve({ dr, performance: 'disabled', performancePrimaryApiAddr: '' }),
  );
  await h.client.flush();
});

afterAll(async () => {
  replication?.unsubscribe();
  engine?.stop();
  await h?.close();
});

const sys = (contract: Contract, path: string, extra: Record<string, unknown> = {}): Promise<any> =>
  h.call(contract, { mount: h.mount('sys/'), path, ...extra });
const leaseExists = async (leaseId: string) => {
  try {
    await sys(leaseContracts.lookup, 'leases/lookup', { body: { lease_id: leaseId } });
    return true;
  } catch {
    return false;
  }
};

it('a DR secondary neither expires tokens nor revokes leases, and does both once promoted', async () => {
  const created = await h.call(tokenContracts.create, {
    mount: h.mount('auth/token/'),
    path: 'create',
    body: { policies: ['default'], ttl: '30s' },
  });
  const accessor = created.auth?.accessor ?? '';
  const revoked = await h.record(tokenRevoked);
  const tokenRevokedHere = () => revoked.some((r) => r.accessors.includes(accessor));
  const lease = await registerTestLease(h.client, await h.callerFor(h.rootToken), 'dyn/creds/dr', {
    ttl: 5,
  });
  h.clock.now = new Date(h.clock.now.getTime() + 60_000);

  expect(await h.app.get(TokenSweeper).sweep()).toBe(0);
  expect(await h.app.get(LeaseManager).pass()).toBe(0);
  expect(tokenRevokedHere()).toBe(false);
  expect(await leaseExists(lease.lease_id)).toBe(true);
  expect(engine.revokedIds()).not.toContain(lease.lease_id);

  dr = 'primary';
  await h.client.publish(replicationModesChanged, {
    dr,
    performance: 'disabled',
    performancePrimaryApiAddr: '',
  });
  await waitFor(() => engine.revokedIds().includes(lease.lease_id), {
    message: 'lease revoked once promoted',
  });
  await waitFor(tokenRevokedHere, { message: 'token expired once promoted' });
});
