import {
  coreSentinelPolicies,
  coreSentinelTokenFacts,
  invalidation,
  namespaceContracts,
  sysContracts,
  type Invalidation,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness } from '../test-support/core-sys-harness';

const POLICY = 'import "time"\n\nmain = rule {\n  time.now.hour >= 0\n}\n';

describe('RGP and EGP policies (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let invalidations: Invalidation[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('sentinel');
    const init = await h.initialise(1, 1);
    await h.unseal(init.keys);
    invalidations = await h.record(invalidation);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const c = sysContracts;
  const write = (kind: 'rgp' | 'egp', name: string, body: Record<string, unknown>) =>
    h.sys(kind === 'rgp' ? c.rgpWrite : c.egpWrite, {
      operation: 'update',
      path: `policies/${kind}/${name}`,
      params: { name },
      body,
    });
  const read = (kind: 'rgp' | 'egp', name: string) =>
    h.sys(kind === 'rgp' ? c.rgpRead : c.egpRead, {
      operation: 'read',
      path: `policies/${kind}/${name}`,
      params: { name },
    });
  const remove = (kind: 'rgp' | 'egp', name: string) =>
    h.sys(kind === 'rgp' ? c.rgpDelete : c.egpDelete, {
      operation: 'delete',
      path: `policies/${kind}/${name}`,
      params: { name },
    });

  it('lists nothing as a 404 before any policy exists', async () => {
    expect(await h.failure(h.sys(c.rgpList, { operation: 'list', path: 'policies/rgp' }))).toMatchObject({
      code: 'not_found',
    });
    expect(await h.failure(h.sys(c.egpList, { operation: 'list', path: 'policies/egp' }))).toMatchObject({
      code: 'not_found',
    });
  });

  it('writes, reads and lists an RGP (name lower-cased), broadcasting before answering', async () => {
    const res = await write('rgp', 'Business-Hours', { policy: POLICY, enforcement_level: 'hard-mandatory' });
    expect(res).toMatchObject({ kind: 'envelope', data: null });
    await waitFor(() => invalidations.some((i) => i.kind === 'policy' && i.keys[0] === 'rgp:business-hours'));
    expect(await read('rgp', 'business-hours')).toMatchObject({
      kind: 'injected',
      data: { name: 'business-hours', policy: POLICY, enforcement_level: 'hard-mandatory' },
    });
    expect((await h.sys(c.rgpList, { operation: 'list', path: 'policies/rgp' })).data).toEqual({
      keys: ['business-hours'],
    });
  });

  it('writes an EGP with paths as a comma string or a list, and lists the name_path_map', async () => {
    await write('egp', 'all', { policy: POLICY, enforcement_level: 'advisory', paths: '*' });
    await write('egp', 'secrets', {
      policy: Buffer.from(POLICY).toString('base64'),
      enforcement_level: 'soft-mandatory',
      paths: 'secret/*, /kv/data/x ,secret/*',
    });
    await write('egp', 'listed', { policy: POLICY, enforcement_level: 'advisory', paths: ['a/b', 'c/*'] });
    expect((await read('egp', 'secrets')).data).toEqual({
      name: 'secrets',
      policy: POLICY,
      enforcement_level: 'soft-mandatory',
      paths: ['secret/*', 'kv/data/x'],
    });
    const list = await h.sys(c.egpList, { operation: 'list', path: 'policies/egp' });
    expect(list).toMatchObject({
      kind: 'injected',
      data: {
        keys: ['all', 'listed', 'secrets'],
        name_path_map: {
          all: [{ path: '*', glob: true }],
          listed: [
            { path: 'a/b', glob: false },
            { path: 'c/*', glob: true },
          ],
          secrets: [
            { path: 'secret/*', glob: true },
            { path: 'kv/data/x', glob: false },
          ],
        },
      },
    });
  });

  it.each([
    [{ enforcement_level: 'advisory' }, "'policy' parameter not supplied or empty"],
    [{ policy: POLICY }, 'enforcement_level must be provided'],
    [{ policy: POLICY, enforcement_level: 'strict' }, 'invalid enforcement level "strict"'],
    [{ policy: 'main = rule {\n  true and\n}', enforcement_level: 'advisory' }, 'line 3, column 1'],
  ])('refuses a bad RGP write %j', async (body, message) => {
    const failure = await h.failure(write('rgp', 'bad', body));
    expect(failure.code).toBe('invalid_request');
    expect(failure.message).toContain(message);
  });

  it('refuses an EGP without paths or with a "*" inside a path', async () => {
    expect(
      await h.failure(write('egp', 'bad', { policy: POLICY, enforcement_level: 'advisory' })),
    ).toMatchObject({
      message: 'paths must be provided for an EGP',
    });
    expect(
      await h.failure(write('egp', 'bad', { policy: POLICY, enforcement_level: 'advisory', paths: 'a/*/b' })),
    ).toMatchObject({ code: 'invalid_request' });
    expect(
      await h.failure(
        write('egp', 'bad', {
          policy: 'main = rule { request.path is }',
          enforcement_level: 'advisory',
          paths: '*',
        }),
      ),
    ).toMatchObject({ message: expect.stringMatching(/^failed to parse policy: line 1, column 31: /) });
  });

  it('serves every policy with its version to the gateway, and token facts', async () => {
    await write('rgp', 'business-hours', { policy: POLICY, enforcement_level: 'soft-mandatory' });
    const { policies } = await h.client.request(coreSentinelPolicies, {});
    expect(policies.map((p) => `${p.kind}:${p.name}:${p.version}`)).toEqual([
      'egp:all:1',
      'egp:listed:1',
      'egp:secrets:1',
      'rgp:business-hours:2',
    ]);
    expect(await h.client.request(coreSentinelTokenFacts, { tokenRef: 'nope' })).toBeNull();
  });

  it('deletes a policy from all its paths, broadcasting the change', async () => {
    const before = invalidations.length;
    await remove('egp', 'secrets');
    await waitFor(() => invalidations.length > before);
    expect(invalidations.at(-1)).toEqual({ kind: 'policy', keys: ['egp:secrets'] });
    expect(await h.failure(read('egp', 'secrets'))).toMatchObject({ code: 'not_found' });
    await remove('egp', 'secrets');
    const { policies } = await h.client.request(coreSentinelPolicies, {});
    expect(policies.some((p) => p.name === 'secrets')).toBe(false);
  });
  it('keeps RGPs and EGPs per namespace: stored under "<ns><name>", listed and read there only', async () => {
    await h.sys(namespaceContracts.create, {
      operation: 'update',
      path: 'namespaces/sent',
      params: { path: 'sent' },
    });
    const inNs = { namespace: 'sent/' };
    await h.sys(
      c.egpWrite,
      {
        operation: 'update',
        path: 'policies/egp/Guard',
        params: { name: 'Guard' },
        body: { policy: POLICY, enforcement_level: 'advisory', paths: ['kv/*'] },
      },
      inNs,
    );
    const listed = await h.sys(c.egpList, { operation: 'list', path: 'policies/egp' }, inNs);
    expect(listed.data).toEqual({
      keys: ['guard'],
      name_path_map: { guard: [{ path: 'kv/*', glob: true }] },
    });
    const read = await h.sys(
      c.egpRead,
      { operation: 'read', path: 'policies/egp/guard', params: { name: 'guard' } },
      inNs,
    );
    expect(read.data).toMatchObject({ name: 'guard', paths: ['kv/*'] });
    expect(
      (
        await h.failure(
          h.sys(c.egpRead, { operation: 'read', path: 'policies/egp/guard', params: { name: 'guard' } }),
        )
      ).code,
    ).toBe('not_found');
    const all = await h.client.request(coreSentinelPolicies, {});
    expect(all.policies.map((p) => p.name)).toContain('sent/guard');

    await h.sys(namespaceContracts.delete, {
      operation: 'delete',
      path: 'namespaces/sent',
      params: { path: 'sent' },
    });
    const after = await h.client.request(coreSentinelPolicies, {});
    expect(after.policies.map((p) => p.name)).not.toContain('sent/guard');
  }, 30_000);
});
