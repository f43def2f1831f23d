import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ClientSecretCredential } from '@azure/identity';
import {
  makeTestCertificates,
  startFakeAzure,
  waitFor,
  type FakeAzure,
  type TestCertificates,
} from '@coffer/testing';
import { START_TIMEOUT_MS, startTarget, TARGETS, type ApiClient, type Target } from './support';

jest.setTimeout(240_000);

/**
 * cloud-a end to end, dev and cluster: Coffer trusts the local Azure's test CA through
 * NODE_EXTRA_CA_CERTS (no ca_certificate in its config) and takes the client secret from
 * CLOUDA_CLIENT_SECRET; credentials it hands out work with the real @azure/identity client, and
 * their leases' revocation (explicit, on expiry, failing until irrevocable) acts in Azure.
 */
describe.each(TARGETS)('%s: cloud-a engine', (kind) => {
  let dir: string;
  let certs: TestCertificates;
  let azure: FakeAzure;
  let target: Target;
  let root: ApiClient;
  const saved = { ca: process.env.NODE_EXTRA_CA_CERTS, secret: process.env.CLOUDA_CLIENT_SECRET };
  const scope = () => `/subscriptions/${azure.subscriptionId}`;
  const leftovers = () => azure.leftovers();
  const none = { applications: 0, passwords: 0, servicePrincipals: 0, roleAssignments: 0, memberships: 0 };
  const tokenWith = (clientId: string, secret: string) =>
    new ClientSecretCredential(azure.tenantId, clientId, secret, {
      authorityHost: azure.authorityHost,
      disableInstanceDiscovery: true,
      agent: new Agent({ ca: certs.ca }),
      retryOptions: { maxRetries: 0 },
    }).getToken(`${azure.graphEndpoint}/.default`);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cloud-a-e2e-'));
    certs = makeTestCertificates(dir);
    azure = await startFakeAzure({ cert: certs.cert, key: certs.key });
    azure.addRoleDefinition('Contributor');
    azure.addGroup('builders');
    // inherited by the dev server and every cluster process
    process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
    process.env.CLOUDA_CLIENT_SECRET = azure.clientSecret;
    target = await startTarget(kind, { label: 'cloud-a', readyTimeoutMs: 150_000 });
    root = target.root;
    if (kind === 'cluster')
      expect((await root.post('sys/mounts/cloud-a', { type: 'cloud-a' })).status).toBe(204);
    // the engine holds the keyring once it answers (404: no config yet)
    await waitFor(async () => (await root.get('cloud-a/config')).status === 404, {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  }, 2 * START_TIMEOUT_MS);
  afterAll(async () => {
    await target?.stop();
    await azure?.stop();
    if (saved.ca === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved.ca;
    if (saved.secret === undefined) delete process.env.CLOUDA_CLIENT_SECRET;
    else process.env.CLOUDA_CLIENT_SECRET = saved.secret;
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => azure.clearFaults());

  it('config: 400 on bad input, 204 on write, read back without any secret', async () => {
    const bad = await root.post('cloud-a/config', { tenant_id: azure.tenantId });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: ['subscription_id is required'] });
    const env = await root.post('cloud-a/config', {
      subscription_id: 's',
      tenant_id: 't',
      environment: 'moon',
    });
    expect(env.status).toBe(400);
    expect(env.body.errors).toEqual([
      'autorest/azure: There is no cloud environment matching the name "MOON"',
    ]);
    const written = await root.post('cloud-a/config', {
      subscription_id: azure.subscriptionId,
      tenant_id: azure.tenantId,
      client_id: azure.clientId,
      environment: 'AzurePublicCloud',
      authority_host: azure.authorityHost,
      graph_endpoint: azure.graphEndpoint,
      resource_manager_endpoint: azure.resourceManagerEndpoint,
      request_timeout: 5,
    });
    expect(written.status).toBe(204);
    const read = await root.get('cloud-a/config');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      subscription_id: azure.subscriptionId,
      tenant_id: azure.tenantId,
      client_id: azure.clientId,
      environment: 'AzurePublicCloud',
      password_policy: '',
      authority_host: azure.authorityHost,
      graph_endpoint: azure.graphEndpoint,
      resource_manager_endpoint: azure.resourceManagerEndpoint,
      ca_certificate: '',
      request_timeout: 5,
    });
    expect(read.text).not.toContain(azure.clientSecret);
  });

  it('roles: write, read, list, 400s for what Azure does not have', async () => {
    const roles = JSON.stringify([{ role_name: 'Contributor', scope: scope() }]);
    const groups = JSON.stringify([{ group_name: 'builders' }]);
    expect(
      (
        await root.post('cloud-a/roles/app', {
          cloud_a_roles: roles,
          cloud_a_groups: groups,
          ttl: '1h',
          max_ttl: '2h',
        })
      ).status,
    ).toBe(204);
    const read = await root.get('cloud-a/roles/app');
    expect(read.body.data).toMatchObject({
      cloud_a_roles: [
        { role_name: 'Contributor', scope: scope(), role_id: expect.stringContaining('/roleDefinitions/') },
      ],
      cloud_a_groups: [{ group_name: 'builders', object_id: expect.any(String) }],
      application_object_id: '',
      ttl: 3600,
      max_ttl: 7200,
    });
    expect((await root.list('cloud-a/roles')).body.data).toEqual({ keys: ['app'] });
    const missing = await root.post('cloud-a/roles/nope', {
      cloud_a_roles: JSON.stringify([{ role_name: 'Owner', scope: scope() }]),
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errors: ["no role found for role_name: 'Owner'"] });
    expect((await root.post('cloud-a/roles/nope', {})).body).toEqual({
      errors: ['missing Azure role or group definitions, or Application Object ID'],
    });
    expect((await root.get('cloud-a/roles/nope')).status).toBe(404);
    expect((await root.delete('cloud-a/roles/nope')).status).toBe(204);
  });

  it('creds: a working service principal with a lease; revoking the lease removes it from Azure', async () => {
    const res = await root.get('cloud-a/creds/app');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      renewable: true,
      lease_duration: 3600,
      lease_id: expect.stringMatching(/^cloud-a\/creds\/app\//),
    });
    const { client_id, client_secret } = res.body.data;
    expect((await tokenWith(client_id, client_secret)).token).toBeTruthy();
    expect(leftovers()).toEqual({
      applications: 1,
      passwords: 1,
      servicePrincipals: 1,
      roleAssignments: 1,
      memberships: 1,
    });
    const renewed = await root.put('sys/leases/renew', { lease_id: res.body.lease_id, increment: 60 });
    expect(renewed.status).toBe(200);
    expect((await root.put('sys/leases/revoke', { lease_id: res.body.lease_id })).status).toBe(204);
    expect(leftovers()).toEqual(none);
    await expect(tokenWith(client_id, client_secret)).rejects.toThrow(/AADSTS7000215/);
  });

  it('creds of an application_object_id role: only a password, removed when its lease expires', async () => {
    const owned = { id: randomUUID(), appId: randomUUID(), displayName: 'existing', passwords: [] };
    azure.applications.set(owned.id, owned);
    expect((await root.post('cloud-a/roles/fixed', { application_object_id: owned.id, ttl: 2 })).status).toBe(
      204,
    );
    const res = await root.get('cloud-a/creds/fixed');
    expect(res.status).toBe(200);
    expect(res.body.data.client_id).toBe(owned.appId);
    expect(res.body.lease_duration).toBe(2);
    expect(owned.passwords).toHaveLength(1);
    await waitFor(() => owned.passwords.length === 0, { timeoutMs: 30_000, intervalMs: 250 });
    expect(azure.applications.has(owned.id)).toBe(true);
  });

  it('502 with the reason when Azure fails or is slow; nothing half-created stays', async () => {
    azure.fail('PUT', /roleAssignments/, 503, 1);
    const failed = await root.get('cloud-a/creds/app');
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({
      errors: ['failed to assign the role: Azure answered 503: InjectedFault: injected fault'],
    });
    expect(leftovers()).toEqual(none);
    azure.delay('POST', /\/servicePrincipals$/, 8_000, 1);
    const slow = await root.get('cloud-a/creds/app');
    expect(slow.status).toBe(502);
    expect(slow.body).toEqual({
      errors: ['failed to create the service principal: no answer from Azure within 5s'],
    });
    // the principal Azure creates after Coffer gave up goes with its application
    await waitFor(() => azure.servicePrincipals.size === 0 && leftovers().applications === 0, {
      timeoutMs: 30_000,
    });
    expect(leftovers()).toEqual(none);
  });

  it('a revocation that keeps failing is retried, then listed as irrevocable', async () => {
    expect(
      (
        await root.post('cloud-a/roles/brittle', {
          cloud_a_groups: JSON.stringify([{ group_name: 'builders' }]),
          ttl: 1,
        })
      ).status,
    ).toBe(204);
    azure.fail('DELETE', /\/v1\.0\/applications\//, 500, 1000);
    const res = await root.get('cloud-a/creds/brittle');
    expect(res.status).toBe(200);
    const listed = await waitFor(
      async () => {
        const list = await root.get('sys/leases', { query: { type: 'irrevocable' } });
        return (list.body.data?.leases as { lease_id: string; error?: string }[] | undefined)?.find(
          (l) => l.lease_id === res.body.lease_id,
        );
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    expect(listed?.error).toContain('failed to delete the application: Azure answered 500');
    expect(
      azure.calls.filter((c) => c.method === 'DELETE' && c.path.startsWith('/v1.0/applications/')).length,
    ).toBeGreaterThanOrEqual(2);
    azure.clearFaults();
    expect((await root.put(`sys/leases/revoke-force/${res.body.lease_id}`)).status).toBe(204);
  });
});
