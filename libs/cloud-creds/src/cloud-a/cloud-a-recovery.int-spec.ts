import { cloudA } from '@coffer/contracts/cloud-a';
import { CloudARecoverySweep } from './creds/cloud-a-recovery.sweep';
import { startCloudAHarness, type CloudAHarness } from './test-support/cloud-a-harness';

jest.setTimeout(90_000);

/**
 * cloud-a's faults and its recovery pass, on real Postgres and NATS against the local HTTPS Azure:
 * 502s that leave nothing behind, time-outs, the takeover of a creation past its deadline,
 * failing revocations, and issued credentials whose lease never reached core-sys.
 */
describe('cloud-a faults and recovery (Postgres, NATS, local Azure over HTTPS)', () => {
  let h: CloudAHarness;
  const call: CloudAHarness['call'] = (...args) => h.call(...args);
  const failure: CloudAHarness['failure'] = (p) => h.failure(p);
  const lease: CloudAHarness['lease'] = (op, internal) => h.lease(op, internal);
  const configure: CloudAHarness['configure'] = (extra) => h.configure(extra);
  const noLeftovers = () => h.noLeftovers();

  beforeAll(async () => {
    h = await startCloudAHarness('cloud-a-recovery-int');
    await configure();
    const roles = JSON.stringify([
      { role_name: 'Reader', scope: `/subscriptions/${h.azure.subscriptionId}` },
    ]);
    const groups = JSON.stringify([{ group_name: 'deployers' }]);
    await call(
      cloudA.roleWrite,
      'update',
      'roles/dyn',
      { cloud_a_roles: roles, cloud_a_groups: groups, ttl: '1h', max_ttl: 7200 },
      { name: 'dyn' },
    );
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(() => h.azure.clearFaults());

  it('answers 502 when Azure fails and leaves nothing half-created', async () => {
    h.azure.fail('PUT', /roleAssignments/, 500, 1);
    expect(await failure(call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' }))).toEqual({
      code: 'upstream_error',
      message: 'failed to assign the role: Azure answered 500: InjectedFault: injected fault',
    });
    noLeftovers();
    await configure({ client_secret: 'wrong' });
    expect(await failure(call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' }))).toMatchObject({
      code: 'upstream_error',
      message: expect.stringMatching(
        /^failed to get a token from https:\/\/127\.0\.0\.1:\d+: .*AADSTS7000215/,
      ),
    });
    await configure({ graph_endpoint: 'https://127.0.0.1:1' });
    expect(await failure(call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' }))).toEqual({
      code: 'upstream_error',
      message: 'failed to create the application: connect ECONNREFUSED 127.0.0.1:1',
    });
    await configure();
    noLeftovers();
  });

  it('times out a slow Azure per request_timeout, and the recovery pass removes what arrives late', async () => {
    await configure({ request_timeout: 1 });
    h.azure.delay('POST', /\/v1\.0\/applications$/, 2500, 1);
    const started = Date.now();
    expect(await failure(call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' }))).toEqual({
      code: 'upstream_error',
      message: 'failed to create the application: no answer from Azure within 1s',
    });
    expect(Date.now() - started).toBeLessThan(2500);
    // the application Azure created after Coffer stopped waiting
    await new Promise((r) => setTimeout(r, 2000));
    expect(h.azure.leftovers().applications).toBe(1);
    const sweep = h.app.get(CloudARecoverySweep);
    expect(await sweep.sweep()).toBe(0); // not before the creation's deadline
    h.advance(60_000);
    expect(await sweep.sweep()).toBe(1);
    noLeftovers();
    await configure({ request_timeout: 60 });
  });

  it('lets the recovery pass take over a creation past its deadline; the creator then stops', async () => {
    const held = h.azure.hold('POST', /\/v1\.0\/servicePrincipals$/);
    const creating = failure(call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' }));
    await held.reached;
    expect(h.azure.leftovers()).toMatchObject({ applications: 1, passwords: 1 });
    h.advance(10 * 60_000);
    expect(await h.app.get(CloudARecoverySweep).sweep()).toBeGreaterThanOrEqual(1); // with earlier abandoned ones
    expect(h.azure.leftovers().applications).toBe(0);
    held.release();
    expect(await creating).toMatchObject({ code: 'upstream_error' });
    noLeftovers();
  });

  it('keeps failing revocations failing (core-sys retries them) until Azure recovers', async () => {
    const res = await call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' });
    h.azure.fail('DELETE', /\/v1\.0\/applications\//, 500, 1);
    await expect(lease('revoke', res.secret.internal)).rejects.toMatchObject({ code: 'upstream_error' });
    await lease('revoke', res.secret.internal);
    noLeftovers();
  });

  it('undoes an issued credential whose lease core-sys never got, once the registration cannot be coming', async () => {
    const sweep = h.app.get(CloudARecoverySweep);
    const kept = await call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' });
    const orphan = await call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' });
    h.leased.add(kept.secret.internal.cred_id);
    h.leaseQuestions.length = 0;
    await sweep.sweep(); // within the grace: core-sys is not even asked
    expect(h.leaseQuestions).toEqual([]);
    expect(h.azure.leftovers().applications).toBe(2);

    h.advance(31_000);
    // (the service's own pass may run alongside: removal is idempotent, so only the outcome counts)
    await sweep.sweep();
    expect(h.leaseQuestions.flat()).toEqual(
      expect.arrayContaining([kept.secret.internal.cred_id, orphan.secret.internal.cred_id]),
    );
    expect([...h.azure.applications.values()].map((a) => a.appId)).toEqual([kept.data.client_id]);
    // the leased one is the lease's from now on: never asked about again
    const asked = h.leaseQuestions.length;
    h.advance(60_000);
    await sweep.sweep();
    expect(h.leaseQuestions).toHaveLength(asked);
    await lease('revoke', kept.secret.internal);
    noLeftovers();
  });
});
