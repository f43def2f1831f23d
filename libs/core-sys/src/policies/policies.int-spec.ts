import { DEFAULT_POLICY } from '@coffer/acl';
import { corePolicyTexts, invalidation, sysContracts, type Invalidation } from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness } from '../test-support/core-sys-harness';
import { PolicyService } from './policy.service';

const DEV = 'path "secret/data/dev/*" {\n  capabilities = ["create", "read", "update"]\n}\n';

describe('ACL policies (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let invalidations: Invalidation[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('policies');
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    invalidations = await h.record(invalidation);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const c = sysContracts;
  const list = async () => (await h.sys(c.policiesList, { operation: 'list', path: 'policies/acl' })).data;
  const read = (name: string) =>
    h.sys(c.policyRead, { operation: 'read', path: `policies/acl/${name}`, params: { name } });
  const write = (name: string, policy: string) =>
    h.sys(c.policyWrite, {
      operation: 'update',
      path: `policies/acl/${name}`,
      params: { name },
      body: { policy },
    });
  const remove = (name: string) =>
    h.sys(c.policyDelete, { operation: 'delete', path: `policies/acl/${name}`, params: { name } });
  const exists = (name: string) =>
    h.sys(c.policyExists, {
      operation: 'update',
      path: `policies/acl/${name}`,
      params: { name },
    }) as Promise<unknown>;

  it('starts with the built-in default and root policies', async () => {
    expect(await list()).toEqual({ keys: ['default', 'root'] });
    expect((await read('default')).data).toEqual({ name: 'default', policy: DEFAULT_POLICY });
    expect((await read('root')).data).toEqual({ name: 'root', policy: '' });
  });

  it('writes a policy (name lower-cased), broadcasts before answering and lists it', async () => {
    const res = await write('Dev', DEV);
    expect(res).toMatchObject({ kind: 'envelope', data: null, warnings: [] });
    await waitFor(() => invalidations.some((i) => i.kind === 'policy' && i.keys[0] === 'dev'));
    expect((await read('dev')).data).toEqual({ name: 'dev', policy: DEV });
    expect(await list()).toEqual({ keys: ['default', 'dev', 'root'] });
    expect(await exists('dev')).toEqual({ exists: true });
    expect(await exists('ghost')).toEqual({ exists: false });
  });

  it('decodes a base64-encoded policy', async () => {
    await write('encoded', Buffer.from(DEV).toString('base64'));
    expect((await read('encoded')).data).toEqual({ name: 'encoded', policy: DEV });
  });

  it('refuses invalid HCL with the parser error and its position', async () => {
    const failure = await h.failure(write('broken', 'path "secret/*" {\n  capabilities = ["read"\n}\n'));
    expect(failure.code).toBe('invalid_request');
    expect(failure.message).toMatch(/^failed to parse policy: At 3:1: /);
    expect(await h.failure(read('broken'))).toMatchObject({ code: 'not_found' });
  });

  it('protects root and default', async () => {
    expect(await h.failure(write('root', DEV))).toMatchObject({ message: 'cannot update root policy' });
    expect(await h.failure(remove('root'))).toMatchObject({ message: 'cannot delete root policy' });
    expect(await h.failure(remove('default'))).toMatchObject({ message: 'cannot delete default policy' });
    await write('default', DEV);
    expect((await read('default')).data).toEqual({ name: 'default', policy: DEV });
  });

  it('serves policy texts to the gateway (root implicit) and answers existing names', async () => {
    const texts = await h.client.request(corePolicyTexts, { names: ['dev', 'root', 'nope'] });
    expect(texts).toEqual({ policies: [{ name: 'dev', text: DEV }] });
    expect(await h.replica(0).app.get(PolicyService).existing(['dev', 'nope', 'root', 'Default'])).toEqual([
      'dev',
      'root',
      'Default',
    ]);
  });

  it('serves the legacy sys/policy routes', async () => {
    const legacy = await h.sys(c.legacyPoliciesList, { operation: 'read', path: 'policy' });
    expect(legacy).toMatchObject({
      kind: 'injected',
      data: { policies: ['default', 'dev', 'encoded', 'root'] },
    });
    expect((legacy.data as { keys: string[] }).keys).toEqual(['default', 'dev', 'encoded', 'root']);
    const rules = await h.sys(c.legacyPolicyWrite, {
      operation: 'update',
      path: 'policy/old',
      params: { name: 'old' },
      body: { rules: DEV },
    });
    expect(rules.warnings).toEqual(["'rules' is deprecated, please use 'policy' instead"]);
    const old = await h.sys(c.legacyPolicyRead, {
      operation: 'read',
      path: 'policy/old',
      params: { name: 'old' },
    });
    expect(old.data).toEqual({ name: 'old', rules: DEV });
  });

  it('deletes a policy, broadcasting the change', async () => {
    const before = invalidations.length;
    expect(await remove('dev')).toMatchObject({ data: null });
    await waitFor(() => invalidations.length > before);
    expect(invalidations.at(-1)).toEqual({ kind: 'policy', keys: ['dev'] });
    expect(await h.failure(read('dev'))).toMatchObject({ code: 'not_found' });
    await remove('dev');
    await write('dev', DEV);
    expect((await read('dev')).data).toMatchObject({ policy: DEV });
  });
});
