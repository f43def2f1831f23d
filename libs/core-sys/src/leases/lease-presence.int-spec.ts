import { coreLeasesHeld, leaseContracts } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { LEASE_TEST_MOUNT, LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let engine: LeaseTestEngine;

beforeAll(async () => {
  h = await startCoreSysHarness('leaseheld');
  engine = new LeaseTestEngine(h.client);
  await h.client.flush();
});

afterAll(async () => {
  engine?.stop();
  await h?.close();
});

const held = (values: string[], since = 0, mountUuid = LEASE_TEST_MOUNT.uuid) =>
  h.client.request(coreLeasesHeld, { mount_uuid: mountUuid, field: 'cred_id', values, since });

describe('core.sys.leases.held', () => {
  it("answers which of an engine's credentials have a lease, by a field of the lease's internal data", async () => {
    const caller = await h.callerFor(h.rootToken);
    const secret = (credId: string) => ({ ttl: 600, renewable: true, internal: { cred_id: credId } });
    await registerTestLease(h.client, caller, 'dyn/creds/a', secret('c-1'));
    await registerTestLease(h.client, caller, 'dyn/creds/b', secret('c-2'));

    expect((await held(['c-1', 'c-3'])).held).toEqual(['c-1']);
    expect((await held(['c-2', 'c-1'])).held.sort()).toEqual(['c-1', 'c-2']);
    expect((await held([])).held).toEqual([]);
    // another mount's leases, and leases issued before `since`, are not the asker's
    expect((await held(['c-1'], 0, 'other-mount')).held).toEqual([]);
    expect((await held(['c-1'], h.clock.now.getTime() + 1)).held).toEqual([]);
  });

  it('loses a credential from the answer once its lease is revoked', async () => {
    const caller = await h.callerFor(h.rootToken);
    const lease = await registerTestLease(h.client, caller, 'dyn/creds/r', {
      ttl: 600,
      internal: { cred_id: 'c-r' },
    });
    expect((await held(['c-r'])).held).toEqual(['c-r']);
    await h.call(leaseContracts.revoke, {
      mount: h.mount('sys/'),
      path: 'leases/revoke',
      body: { lease_id: lease.lease_id },
    });
    expect((await held(['c-r'])).held).toEqual([]);
  });
});
