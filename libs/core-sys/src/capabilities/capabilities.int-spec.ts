import { coreTokenResolve, sysContracts, tokenContracts, type AuthBlock } from '@coffer/contracts';
import { CoreSysHarness, type InitResult } from '../test-support/core-sys-harness';

const READER = `
path "secret/*" {
  capabilities = ["read", "list"]
}
path "secret/locked" {
  capabilities = ["deny"]
}
path "sys/mounts/*" {
  capabilities = ["create", "update", "sudo"]
}
`;

describe('capabilities (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let init: InitResult;
  let reader: AuthBlock;

  beforeAll(async () => {
    h = await CoreSysHarness.start('capabilities');
    init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    await h.sys(sysContracts.policyWrite, {
      operation: 'update',
      path: 'policies/acl/reader',
      params: { name: 'reader' },
      body: { policy: READER },
    });
    const root = await h.client.request(coreTokenResolve, { token: init.root_token });
    const created = await h.sys(
      tokenContracts.create,
      { operation: 'update', path: 'create', body: { policies: ['reader'] } },
      { accessor: root.accessor, tokenRef: root.tokenRef, policies: ['root'], root: true },
    );
    reader = created.auth as AuthBlock;
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const c = sysContracts;
  const self = (body: Record<string, unknown>, caller = { policies: ['default', 'reader'], root: false }) =>
    h.sys(c.capabilitiesSelf, { operation: 'update', path: 'capabilities-self', body }, caller);

  it("answers the caller's capabilities per path, plus `capabilities` for a single path", async () => {
    const one = await self({ paths: ['secret/foo'] });
    expect(one).toMatchObject({
      kind: 'injected',
      data: { 'secret/foo': ['list', 'read'], capabilities: ['list', 'read'] },
    });
    const many = await self({ paths: ['secret/foo', 'secret/locked', 'sys/mounts/x', 'other/path'] });
    expect(many.data).toEqual({
      'secret/foo': ['list', 'read'],
      'secret/locked': ['deny'],
      'sys/mounts/x': ['create', 'sudo', 'update'],
      'other/path': ['deny'],
    });
    expect((await self({ path: 'sys/capabilities-self' })).data).toMatchObject({ capabilities: ['update'] });
    expect((await self({ paths: ['anything'] }, { policies: ['root'], root: true })).data).toMatchObject({
      capabilities: ['root'],
    });
    expect(await h.failure(self({}))).toMatchObject({
      code: 'invalid_request',
      message: 'paths must be supplied',
    });
  });

  it('answers for another token and for an accessor', async () => {
    const byToken = await h.sys(c.capabilitiesToken, {
      operation: 'update',
      path: 'capabilities',
      body: { token: reader.client_token, paths: ['secret/a', 'secret/locked'] },
    });
    expect(byToken.data).toEqual({ 'secret/a': ['list', 'read'], 'secret/locked': ['deny'] });
    const rootCaps = await h.sys(c.capabilitiesToken, {
      operation: 'update',
      path: 'capabilities',
      body: { token: init.root_token, paths: 'secret/a' },
    });
    expect(rootCaps.data).toEqual({ 'secret/a': ['root'], capabilities: ['root'] });
    const byAccessor = await h.sys(c.capabilitiesAccessor, {
      operation: 'update',
      path: 'capabilities-accessor',
      body: { accessor: reader.accessor, paths: ['secret/b'] },
    });
    expect(byAccessor.data).toEqual({ 'secret/b': ['list', 'read'], capabilities: ['list', 'read'] });
    const bad = h.sys(c.capabilitiesToken, {
      operation: 'update',
      path: 'capabilities',
      body: { token: 'nope', paths: ['x'] },
    });
    expect(await h.failure(bad)).toEqual({
      code: 'invalid_request',
      message: 'invalid token',
      data: undefined,
    });
  });

  it("returns the caller's resultant ACL", async () => {
    const acl = await h.sys(
      c.resultantAcl,
      { operation: 'read', path: 'internal/ui/resultant-acl' },
      { policies: ['reader'], root: false },
    );
    expect(acl.data).toMatchObject({
      root: false,
      exact_paths: { 'secret/locked': { capabilities: ['deny'] } },
      glob_paths: { 'secret/': { capabilities: ['list', 'read'] } },
    });
  });

  it('reads a null path or token field as not set', async () => {
    expect((await self({ paths: ['secret/foo'], path: null, token: null })).data).toMatchObject({
      capabilities: ['list', 'read'],
    });
    expect(await h.failure(self({ paths: null }))).toMatchObject({ message: 'paths must be supplied' });
    const other = await h.sys(c.capabilitiesToken, {
      operation: 'update',
      path: 'capabilities',
      body: { token: reader.client_token, paths: null, path: 'secret/foo', accessor: null },
    });
    expect(other.data).toMatchObject({ capabilities: ['list', 'read'] });
  });
});
