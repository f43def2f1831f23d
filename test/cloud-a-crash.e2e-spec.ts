import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  makeTestCertificates,
  startFakeAzure,
  waitFor,
  type FakeAzure,
  type TestCertificates,
} from '@coffer/testing';
import { startCluster, START_TIMEOUT_MS, type Cluster } from './support';
import { eventCount } from './support/event-log';

jest.setTimeout(240_000);

/**
 * kill -9 of the cloud-creds service after Azure created the application and before Coffer
 * answered (so no lease exists): the write-ahead intent names what was about to be created, and
 * after a restart the recovery pass removes it from Azure. And a credential the engine recorded as
 * issued after the gateway had given up (so its lease was never registered), with a kill -9 after
 * that: the recovery pass finds no lease for it in core-sys and removes it too.
 */
describe('cluster: cloud-creds killed while creating a cloud-a credential', () => {
  let dir: string;
  let certs: TestCertificates;
  let azure: FakeAzure;
  let cluster: Cluster;
  const saved = process.env.NODE_EXTRA_CA_CERTS;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cloud-a-crash-'));
    certs = makeTestCertificates(dir);
    azure = await startFakeAzure({ cert: certs.cert, key: certs.key });
    azure.addRoleDefinition('Reader');
    azure.addGroup('ops');
    process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
    // the gateway gives up on an engine after 5 s: the second test's credential outlives its request
    cluster = await startCluster({
      label: 'cloudacrash',
      readyTimeoutMs: 150_000,
      env: { COFFER_ENGINE_TIMEOUT: '5s' },
    });
    expect((await cluster.client.post('sys/mounts/cloud-a', { type: 'cloud-a' })).status).toBe(204);
    await waitFor(async () => (await cluster.client.get('cloud-a/config')).status === 404, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
    await azure?.stop();
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves nothing in Azure after a restart', async () => {
    const root = cluster.client;
    expect(
      (
        await root.post('cloud-a/config', {
          subscription_id: azure.subscriptionId,
          tenant_id: azure.tenantId,
          client_id: azure.clientId,
          client_secret: azure.clientSecret,
          authority_host: azure.authorityHost,
          graph_endpoint: azure.graphEndpoint,
          resource_manager_endpoint: azure.resourceManagerEndpoint,
          request_timeout: 2,
        })
      ).status,
    ).toBe(204);
    const roles = JSON.stringify([{ role_name: 'Reader', scope: `/subscriptions/${azure.subscriptionId}` }]);
    const groups = JSON.stringify([{ group_name: 'ops' }]);
    expect(
      (await root.post('cloud-a/roles/ci', { cloud_a_roles: roles, cloud_a_groups: groups })).status,
    ).toBe(204);

    // the service principal's creation is where the service dies: the application and its password exist
    const held = azure.hold('POST', /\/v1\.0\/servicePrincipals$/);
    const inFlight = root.get('cloud-a/creds/ci', { timeoutMs: 60_000 }).catch(() => undefined);
    await held.reached;
    expect(azure.leftovers()).toMatchObject({ applications: 1, passwords: 1 });
    const victim = cluster.processes.services['cloud-creds']?.shift();
    if (!victim) throw new Error('no cloud-creds replica');
    victim.kill('SIGKILL');
    await victim.exited;
    held.release(); // Azure finishes what it was asked: the principal exists too
    const answer = await inFlight;
    expect(answer?.status).not.toBe(200);
    await waitFor(() => azure.servicePrincipals.size === 1, { timeoutMs: 10_000 });

    await cluster.addReplica('cloud-creds');
    await waitFor(
      () => {
        const left = azure.leftovers();
        return left.applications === 0 && left.servicePrincipals === 0 && left.memberships === 0;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(azure.leftovers()).toEqual({
      applications: 0,
      passwords: 0,
      servicePrincipals: 0,
      roleAssignments: 0,
      memberships: 0,
    });
    // no lease was ever recorded for it
    expect((await root.list('sys/leases/lookup/cloud-a/creds/ci/')).status).toBe(404);
  });

  it('removes a credential issued after the gateway gave up: no lease ever came (kill -9 after it)', async () => {
    const root = cluster.client;
    // each Azure call may take 15 s: the held one outlives the gateway's 5 s and still succeeds
    expect((await root.post('cloud-a/config', { request_timeout: 15 })).status).toBe(204);
    const roles = JSON.stringify([{ role_name: 'Reader', scope: `/subscriptions/${azure.subscriptionId}` }]);
    const groups = JSON.stringify([{ group_name: 'ops' }]);
    expect(
      (await root.post('cloud-a/roles/late', { cloud_a_roles: roles, cloud_a_groups: groups })).status,
    ).toBe(204);

    const issuedBefore = await eventCount(cluster.databaseUrl, 'cloud_creds', 'CloudACredentialIssued');
    // the group membership is the last Azure call: held until the gateway has answered the client
    const held = azure.hold('POST', /\/groups\/[^/]+\/members\/\$ref$/);
    const answer = await root.get('cloud-a/creds/late', { timeoutMs: 60_000 });
    expect(answer.status).not.toBe(200);
    held.release();
    // recorded as issued right after the membership (the kill must come after that): no lease exists for it
    await waitFor(
      async () =>
        (await eventCount(cluster.databaseUrl, 'cloud_creds', 'CloudACredentialIssued')) > issuedBefore,
      { timeoutMs: 20_000 },
    );
    expect(azure.leftovers().memberships).toBe(1);
    expect((await root.list('sys/leases/lookup/cloud-a/creds/late/')).status).toBe(404);
    const victim = cluster.processes.services['cloud-creds']?.shift();
    if (!victim) throw new Error('no cloud-creds replica');
    victim.kill('SIGKILL');
    await victim.exited;

    const fresh = await cluster.addReplica('cloud-creds');
    await fresh.waitForLine(/was issued but no lease was registered: removing it/, 90_000);
    await waitFor(
      () => {
        const left = azure.leftovers();
        return left.applications === 0 && left.servicePrincipals === 0 && left.memberships === 0;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(azure.leftovers()).toEqual({
      applications: 0,
      passwords: 0,
      servicePrincipals: 0,
      roleAssignments: 0,
      memberships: 0,
    });
  });
});
