import { randomUUID } from 'node:crypto';
import { cloudA } from '@coffer/contracts/cloud-a';
import { startCloudAHarness, type CloudAHarness } from './test-support/cloud-a-harness';

jest.setTimeout(90_000);

/**
 * cloud-a on real Postgres and NATS against a local HTTPS Azure (token authority, Graph, ARM): the
 * real @azure/identity client-credentials flow, the mount's own CA (ca_certificate). Faults and
 * the recovery pass: cloud-a-recovery.int-spec.ts.
 */
describe('cloud-a service (Postgres, NATS, local Azure over HTTPS)', () => {
  let h: CloudAHarness;
  const call: CloudAHarness['call'] = (...args) => h.call(...args);
  const failure: CloudAHarness['failure'] = (p) => h.failure(p);
  const lease: CloudAHarness['lease'] = (op, internal) => h.lease(op, internal);
  const configure: CloudAHarness['configure'] = (extra) => h.configure(extra);
  const tokenWith: CloudAHarness['tokenWith'] = (id, secret) => h.tokenWith(id, secret);
  const noLeftovers = () => h.noLeftovers();

  beforeAll(async () => {
    h = await startCloudAHarness('cloud-a-int');
  });
  afterAll(async () => {
    await h?.close();
  });
  afterEach(() => h.azure.clearFaults());

  it('writes config without checking it, reads it back without the secret, validates fields', async () => {
    expect(await failure(call(cloudA.configRead, 'read', 'config'))).toMatchObject({ code: 'not_found' });
    expect(await failure(call(cloudA.configWrite, 'update', 'config', { tenant_id: 't' }))).toEqual({
      code: 'invalid_request',
      message: 'subscription_id is required',
    });
    expect(
      await failure(
        call(cloudA.configWrite, 'update', 'config', {
          subscription_id: 's',
          tenant_id: 't',
          environment: 'Mars',
        }),
      ),
    ).toEqual({
      code: 'invalid_request',
      message: 'autorest/azure: There is no cloud environment matching the name "MARS"',
    });
    expect(
      await failure(
        call(cloudA.configWrite, 'update', 'config', {
          subscription_id: 's',
          tenant_id: 't',
          graph_endpoint: 'http://x',
        }),
      ),
    ).toEqual({ code: 'invalid_request', message: 'graph_endpoint must be an https URL' });
    await call(cloudA.configWrite, 'update', 'config', {
      subscription_id: 's',
      tenant_id: 't',
      client_secret: 'bogus',
      environment: 'azureusgovernmentcloud',
    });
    const read = await call(cloudA.configRead, 'read', 'config');
    expect(read.data).toEqual({
      subscription_id: 's',
      tenant_id: 't',
      client_id: '',
      environment: 'azureusgovernmentcloud',
      password_policy: '',
      authority_host: '',
      graph_endpoint: '',
      resource_manager_endpoint: '',
      ca_certificate: '',
      request_timeout: 60,
    });
    expect(JSON.stringify(read)).not.toContain('bogus');
    await call(cloudA.configDelete, 'delete', 'config');
    expect(await failure(call(cloudA.configRead, 'read', 'config'))).toMatchObject({ code: 'not_found' });
    await configure();
    expect((await call(cloudA.configRead, 'read', 'config')).data).toMatchObject({
      client_id: h.azure.clientId,
      authority_host: h.azure.authorityHost,
      ca_certificate: h.certs.ca,
    });
  });

  it('resolves role names and groups in Azure and refuses what does not exist', async () => {
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
    expect((await call(cloudA.roleRead, 'read', 'roles/dyn', {}, { name: 'dyn' })).data).toEqual({
      cloud_a_roles: [
        { role_name: 'Reader', role_id: h.readerId, scope: `/subscriptions/${h.azure.subscriptionId}` },
      ],
      cloud_a_groups: [{ group_name: 'deployers', object_id: h.groupId }],
      application_object_id: '',
      ttl: 3600,
      max_ttl: 7200,
    });
    const bad = (body: Record<string, unknown>) =>
      failure(call(cloudA.roleWrite, 'update', 'roles/bad', body, { name: 'bad' }));
    expect(await bad({})).toEqual({
      code: 'invalid_request',
      message: 'missing Azure role or group definitions, or Application Object ID',
    });
    expect(await bad({ cloud_a_roles: '[{' })).toEqual({
      code: 'invalid_request',
      message: "error parsing Azure roles '[{'",
    });
    expect(
      await bad({ cloud_a_roles: JSON.stringify([{ role_name: 'Nope', scope: '/subscriptions/x' }]) }),
    ).toEqual({
      code: 'invalid_request',
      message: "no role found for role_name: 'Nope'",
    });
    expect(
      await bad({ cloud_a_roles: JSON.stringify([{ role_name: 'Twin', scope: '/subscriptions/x' }]) }),
    ).toEqual({
      code: 'invalid_request',
      message: "multiple matches found for role_name: 'Twin'. Specify role by ID instead.",
    });
    expect(
      await bad({
        cloud_a_roles: JSON.stringify([{ role_id: `${h.readerId}0`, scope: '/subscriptions/x' }]),
      }),
    ).toEqual({
      code: 'invalid_request',
      message: `no role found for role_id: '${h.readerId}0'`,
    });
    expect(await bad({ cloud_a_groups: JSON.stringify([{ object_id: randomUUID() }]) })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^no group found for object_id/),
    });
    expect(await bad({ cloud_a_roles: roles, ttl: 10, max_ttl: 5 })).toEqual({
      code: 'invalid_request',
      message: 'ttl cannot be greater than max_ttl',
    });
    expect(await bad({ application_object_id: randomUUID() })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^error loading Application/),
    });
    expect((await call(cloudA.roleList, 'list', 'roles')).data).toEqual({ keys: ['dyn'] });
    expect(await failure(call(cloudA.roleRead, 'read', 'roles/bad', {}, { name: 'bad' }))).toMatchObject({
      code: 'not_found',
    });
  });

  it('creates a working service principal with its role and group, and revocation removes all of it', async () => {
    h.azure.calls.length = 0;
    // Azure's eventual consistency: the new application is not visible to addPassword at first
    h.azure.fail('POST', /addPassword$/, 404, 2);
    const res = await call(cloudA.creds, 'read', 'creds/dyn', {}, { name: 'dyn' });
    expect(res.secret).toMatchObject({ ttl: 3600, max_ttl: 7200, renewable: true });
    const { client_id, client_secret } = res.data;
    const app = [...h.azure.applications.values()].find((a) => a.appId === client_id)!;
    expect(app.displayName).toMatch(/^coffer-dyn-/);
    const sp = [...h.azure.servicePrincipals.values()].find((s) => s.appId === client_id)!;
    expect([...h.azure.roleAssignments.values()]).toEqual([
      expect.objectContaining({ principalId: sp.id, roleDefinitionId: h.readerId }),
    ]);
    expect([...h.azure.groups.get(h.groupId)!.members]).toEqual([sp.id]);
    expect((await tokenWith(client_id, client_secret)).token).toBeTruthy();
    // a custom authority: MSAL's instance discovery stays off
    expect(h.azure.calls.filter((c) => c.path.includes('discovery/instance'))).toEqual([]);
    expect(await lease('renew', res.secret.internal)).toEqual({ ttl: 3600, max_ttl: 7200 });

    await lease('revoke', res.secret.internal);
    noLeftovers();
    await expect(tokenWith(client_id, client_secret)).rejects.toThrow(/AADSTS7000215/);
    await lease('revoke', res.secret.internal); // idempotent
  });

  it('adds and removes only a password for a role with an application_object_id', async () => {
    const owned = { id: randomUUID(), appId: randomUUID(), displayName: 'owned-app', passwords: [] };
    h.azure.applications.set(owned.id, owned);
    await call(
      cloudA.roleWrite,
      'update',
      'roles/static',
      { application_object_id: owned.id, cloud_a_roles: 'ignored' },
      { name: 'static' },
    );
    expect((await call(cloudA.roleRead, 'read', 'roles/static', {}, { name: 'static' })).data).toMatchObject({
      application_object_id: owned.id,
      cloud_a_roles: null,
    });
    const res = await call(cloudA.creds, 'read', 'creds/static', {}, { name: 'static' });
    expect(res.data.client_id).toBe(owned.appId);
    expect(owned.passwords).toHaveLength(1);
    expect((await tokenWith(owned.appId, res.data.client_secret)).token).toBeTruthy();
    await lease('revoke', res.secret.internal);
    expect(owned.passwords).toHaveLength(0);
    expect(h.azure.applications.has(owned.id)).toBe(true);
    expect(await failure(call(cloudA.creds, 'read', 'creds/none', {}, { name: 'none' }))).toEqual({
      code: 'invalid_request',
      message: "role 'none' does not exist",
    });
  });
});
