import { decodeContext, kvV2, sysContracts } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { call, mountEntry, startHarness, token, type Harness } from './harness';

const PERMISSION_DENIED = '1 error occurred:\n\t* permission denied\n\n';
const INVALID_TOKEN = '2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n';

describe('gateway authentication and authorization', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.core.mounts.push({ ...mountEntry('test/', 'testeng'), namespace: 'ns1/', uuid: 'uuid-ns1-test' });
    h.core.policies.set(
      'reader',
      'path "test/echo/*" { capabilities = ["read", "list"] }\npath "test/folder/*" { capabilities = ["list"] }',
    );
    h.core.policies.set('creator', 'path "test/items/*" { capabilities = ["create", "read"] }');
    h.core.policies.set('updater', 'path "test/items/*" { capabilities = ["update"] }');
    h.core.policies.set('admin', 'path "test/root-only" { capabilities = ["update", "sudo"] }');
    h.core.policies.set('nosudo', 'path "test/root-only" { capabilities = ["update"] }');
    h.core.policies.set('templated', 'path "test/echo/{{identity.entity.name}}" { capabilities = ["read"] }');
    h.core.policies.set('group', 'path "test/special/*" { capabilities = ["read"] }');
    h.core.policies.set('ns', 'path "ns1/test/echo/*" { capabilities = ["read"] }');
    h.core.tokens.set('t-reader', token({ accessor: 'a-reader', policies: ['reader'] }));
    h.core.tokens.set('t-creator', token({ accessor: 'a-creator', policies: ['creator'] }));
    h.core.tokens.set('t-updater', token({ accessor: 'a-updater', policies: ['updater'] }));
    h.core.tokens.set('t-admin', token({ accessor: 'a-admin', policies: ['admin'] }));
    h.core.tokens.set('t-nosudo', token({ accessor: 'a-nosudo', policies: ['nosudo'] }));
    h.core.tokens.set(
      't-alice',
      token({ accessor: 'a-alice', policies: ['templated'], entityId: 'e-alice' }),
    );
    h.core.tokens.set(
      't-member',
      token({ accessor: 'a-member', policies: ['default'], identityPolicies: ['group'] }),
    );
    h.core.tokens.set('t-default', token({ accessor: 'a-default', policies: ['default'] }));
    h.core.tokens.set('t-ns', token({ accessor: 'a-ns', policies: ['ns'] }));
    h.core.entities.set('e-alice', { id: 'e-alice', name: 'alice', metadata: {}, aliases: [], groups: [] });
    await h.core.invalidate('mounts');
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers a missing token and an unknown token like Vault', async () => {
    expect(await call(h, 'GET', '/v1/test/echo/x', { token: null })).toMatchObject({
      status: 403,
      body: { errors: ['permission denied'] },
    });
    expect(await call(h, 'GET', '/v1/test/echo/x', { token: 'bogus' })).toMatchObject({
      status: 403,
      body: { errors: [INVALID_TOKEN] },
    });
  });

  it('reads the token from X-Vault-Token and Authorization: Bearer too', async () => {
    for (const headers of [{ 'x-vault-token': 't-reader' }, { authorization: 'Bearer t-reader' }] as Record<
      string,
      string
    >[]) {
      expect((await call(h, 'GET', '/v1/test/echo/x', { token: null, headers })).status).toBe(200);
    }
  });

  it('enforces the ACL on the full path, operation by operation', async () => {
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-reader' })).status).toBe(200);
    expect(await call(h, 'POST', '/v1/test/echo/x', { token: 't-reader', body: {} })).toMatchObject({
      status: 403,
      body: { errors: [PERMISSION_DENIED] },
    });
    expect((await call(h, 'LIST', '/v1/test/folder/sub', { token: 't-reader' })).status).toBe(200);
    expect((await call(h, 'GET', '/v1/test/folder/sub?list=true', { token: 't-reader' })).status).toBe(200);
    const ctx = decodeContext(h.engine.requests.at(-1)?.headers ?? {});
    expect(ctx).toMatchObject({
      accessor: 'a-reader',
      tokenRef: 'ref-a-reader',
      policies: ['reader'],
      root: false,
      sudo: false,
    });
  });

  it('hides routing failures behind 403 from callers without access', async () => {
    expect(await call(h, 'GET', '/v1/nomount/x', { token: 't-reader' })).toMatchObject({
      status: 403,
      body: { errors: [PERMISSION_DENIED] },
    });
    expect(await call(h, 'GET', '/v1/nomount/x', { token: null })).toMatchObject({ status: 403 });
    expect((await call(h, 'GET', '/v1/nomount/x')).status).toBe(404);
    expect((await call(h, 'GET', '/v1/test/echo/bad.', { token: 't-reader' })).status).toBe(404);
  });

  it('chooses create or update with the existence check when the ACL grants only one', async () => {
    expect(await call(h, 'POST', '/v1/test/items/new-1', { token: 't-creator', body: {} })).toMatchObject({
      status: 200,
      body: { data: { created: 'new-1' } },
    });
    expect((await call(h, 'POST', '/v1/test/items/existing', { token: 't-creator', body: {} })).status).toBe(
      403,
    );
    expect(await call(h, 'PUT', '/v1/test/items/existing', { token: 't-updater', body: {} })).toMatchObject({
      status: 200,
      body: { data: { updated: 'existing' } },
    });
    expect((await call(h, 'PUT', '/v1/test/items/new-2', { token: 't-updater', body: {} })).status).toBe(403);
    expect(await call(h, 'POST', '/v1/test/items/new-3', { body: {} })).toMatchObject({
      status: 200,
      body: { data: { created: 'new-3' } },
    });
  });

  it('requires sudo on sudo routes and tells engines about it', async () => {
    expect((await call(h, 'POST', '/v1/test/root-only', { token: 't-nosudo', body: {} })).status).toBe(403);
    expect((await call(h, 'POST', '/v1/test/root-only', { token: 't-admin', body: {} })).status).toBe(200);
    expect(decodeContext(h.engine.requests.at(-1)?.headers ?? {})?.sudo).toBe(true);
  });

  it('serves unauthenticated routes without a token', async () => {
    expect((await call(h, 'GET', '/v1/test/open/x', { token: null })).status).toBe(200);
    const ctx = decodeContext(h.engine.requests.at(-1)?.headers ?? {});
    expect(ctx?.accessor).toBeUndefined();
    expect(ctx?.policies).toEqual([]);
  });

  it('resolves templated policies with entity facts and merges identity policies', async () => {
    expect((await call(h, 'GET', '/v1/test/echo/alice', { token: 't-alice' })).status).toBe(200);
    expect((await call(h, 'GET', '/v1/test/echo/bob', { token: 't-alice' })).status).toBe(403);
    expect((await call(h, 'GET', '/v1/test/special/plain', { token: 't-member' })).status).toBe(200);
    // "default" has no text in core-sys here: the built-in default policy applies (no test/ access)
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-default' })).status).toBe(403);
  });

  it('routes namespaces from the header or the path, and checks the ACL on the full path', async () => {
    const viaHeader = await call(h, 'GET', '/v1/test/echo/x', {
      token: 't-ns',
      headers: { 'x-service-namespace': 'ns1' },
    });
    expect(viaHeader.status).toBe(200);
    expect(decodeContext(h.engine.requests.at(-1)?.headers ?? {})?.namespace).toBe('ns1/');
    expect((await call(h, 'GET', '/v1/ns1/test/echo/x', { token: 't-ns' })).status).toBe(200);
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-ns' })).status).toBe(403);
  });

  it('caches resolved tokens and drops them on the token invalidation, so a revoked token fails at once', async () => {
    h.core.tokens.set('t-revoke', token({ accessor: 'a-revoke', policies: ['reader'] }));
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-revoke' })).status).toBe(200);
    const before = h.core.calls.resolve;
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-revoke' })).status).toBe(200);
    expect(h.core.calls.resolve).toBe(before);
    h.core.tokens.delete('t-revoke');
    // core-sys publishes before it answers the revoke; the very next request must fail
    await h.core.invalidate('token', ['a-revoke']);
    expect(await call(h, 'GET', '/v1/test/echo/x', { token: 't-revoke' })).toMatchObject({
      status: 403,
      body: { errors: [INVALID_TOKEN] },
    });
  });

  it('resolves non-cacheable tokens (use counts) on every request', async () => {
    h.core.tokens.set('t-uses', token({ accessor: 'a-uses', policies: ['reader'], cacheable: false }));
    const before = h.core.calls.resolve;
    await call(h, 'GET', '/v1/test/echo/x', { token: 't-uses' });
    await call(h, 'GET', '/v1/test/echo/x', { token: 't-uses' });
    expect(h.core.calls.resolve).toBe(before + 2);
  });

  it('applies policy changes after the policy invalidation', async () => {
    h.core.tokens.set('t-changing', token({ accessor: 'a-changing', policies: ['changing'] }));
    h.core.policies.set('changing', 'path "test/echo/*" { capabilities = ["deny"] }');
    expect((await call(h, 'GET', '/v1/test/echo/x', { token: 't-changing' })).status).toBe(403);
    h.core.policies.set('changing', 'path "test/echo/*" { capabilities = ["read"] }');
    await h.core.invalidate('policy', ['changing']);
    await waitFor(
      async () => (await call(h, 'GET', '/v1/test/echo/x', { token: 't-changing' })).status === 200,
      { timeoutMs: 2000 },
    );
  });

  it('answers 503 when the service of a mount has no running replica', async () => {
    expect(await call(h, 'GET', '/v1/pki/cert/ca')).toMatchObject({
      status: 503,
      body: { errors: ['no running replica of the "pki" service'] },
    });
    expect(await call(h, 'GET', '/v1/kv1/foo')).toMatchObject({
      status: 503,
      body: { errors: ['no running replica of the "kv" service'] },
    });
  });

  it('lists kv v2 folders with the trailing slash the kv routes expect', async () => {
    const seen: string[] = [];
    const sub = h.transport.serve(kvV2.metadataList, 'kv', async (req) => {
      seen.push(req.params['path'] ?? '<none>');
      return { data: { keys: ['k'] } };
    });
    try {
      expect((await call(h, 'LIST', '/v1/secret/metadata/team')).status).toBe(200);
      expect((await call(h, 'LIST', '/v1/secret/metadata/')).status).toBe(200);
      expect(seen).toEqual(['team/', '']);
    } finally {
      sub.unsubscribe();
    }
  });

  it('serves only allowSealed routes while sealed or uninitialised, and recovers on the seal invalidation', async () => {
    const sub = h.transport.serve(sysContracts.sealStatus, 'core-sys', async () => ({
      kind: 'raw' as const,
      // the whole seal-status body: the contract's raw schema is an allow-list with required fields
      body: {
        type: 'shamir',
        initialized: h.core.initialized,
        sealed: h.core.sealed,
        t: 1,
        n: 1,
        progress: 0,
        nonce: '',
        version: '0.0.0',
        build_date: '',
        migration: false,
        recovery_seal: false,
        storage_type: 'postgresql',
      },
    }));
    try {
      for (const state of [
        { sealed: true, initialized: true },
        { sealed: true, initialized: false },
      ]) {
        Object.assign(h.core, state);
        await h.core.invalidate('seal');
        await waitFor(async () => (await call(h, 'GET', '/v1/test/echo/x')).status === 503, {
          timeoutMs: 2000,
        });
        expect(await call(h, 'GET', '/v1/test/echo/x')).toMatchObject({
          body: { errors: ['Vault is sealed'] },
        });
        expect(await call(h, 'GET', '/v1/sys/seal-status', { token: null })).toMatchObject({
          status: 200,
          body: { sealed: true },
        });
        expect((await call(h, 'PUT', '/v1/sys/seal')).status).toBe(503);
      }
      Object.assign(h.core, { sealed: false, initialized: true });
      await h.core.invalidate('seal');
      await waitFor(async () => (await call(h, 'GET', '/v1/test/echo/x')).status === 200, {
        timeoutMs: 2000,
      });
    } finally {
      sub.unsubscribe();
    }
  });
});
