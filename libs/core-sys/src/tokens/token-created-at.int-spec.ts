import { coreTokenCreatedAt, coreTokenResolve, tokenContracts } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;

beforeAll(async () => {
  h = await startCoreSysHarness('token_created_at');
});
afterAll(async () => {
  await h?.close();
});

describe('coreTokenCreatedAt (the OIDC provider: auth_time, max_age)', () => {
  it('answers the creation time of a live token by its ref, null once revoked', async () => {
    const mount = h.mount('auth/token/');
    const before = Date.now();
    const created = await h.call(tokenContracts.create, { mount, path: 'create', body: {} });
    const token = created.auth?.client_token ?? '';
    const { tokenRef } = await h.client.request(coreTokenResolve, { token });
    const { createdAt } = await h.client.request(coreTokenCreatedAt, { tokenRef });
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now());
    await h.call(tokenContracts.revoke, { mount, path: 'revoke', body: { token } });
    expect((await h.client.request(coreTokenCreatedAt, { tokenRef })).createdAt).toBeNull();
    expect((await h.client.request(coreTokenCreatedAt, { tokenRef: 'unknown' })).createdAt).toBeNull();
  });
});
