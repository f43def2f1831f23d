import { randomBytes } from 'node:crypto';
import {
  coreMountTable,
  coreSealState,
  coreTokenResolve,
  invalidation,
  sysContracts,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { CoreSysHarness, type InitResult } from '../test-support/core-sys-harness';

describe('seal: init, unseal, seal, health (NATS + Postgres)', () => {
  let h: CoreSysHarness;
  let init: InitResult;
  let sealBroadcasts: unknown[];

  beforeAll(async () => {
    h = await CoreSysHarness.start('seal_lifecycle');
    sealBroadcasts = await h.record(invalidation);
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  const status = async () =>
    (await h.sys(sysContracts.sealStatus, { operation: 'read', path: 'seal-status' })).body as Record<
      string,
      unknown
    >;
  const health = (query: Record<string, string> = {}) =>
    h.sys(sysContracts.health, { operation: 'read', path: 'health', query });
  const unseal = (body: Record<string, unknown>) =>
    h.sys(sysContracts.unseal, { operation: 'update', path: 'unseal', body });

  it('reports an uninitialised service', async () => {
    expect((await h.sys(sysContracts.initStatus, { operation: 'read', path: 'init' })).body).toEqual({
      initialized: false,
    });
    expect(await h.client.request(coreSealState, {})).toEqual({ initialized: false, sealed: true });
    expect(await status()).toMatchObject({
      type: 'shamir',
      initialized: false,
      sealed: true,
      t: 0,
      n: 0,
      progress: 0,
    });
    const sick = await health();
    expect(sick).toMatchObject({
      kind: 'raw',
      status: 501,
      body: { initialized: false, sealed: true, standby: false },
    });
    expect((await health({ uninitcode: '200' })).status).toBe(200);
    expect(await h.failure(unseal({ key: randomBytes(33).toString('hex') }))).toEqual({
      code: 'not_initialized',
      message: 'Vault is not initialized',
      data: undefined,
    });
  });

  it('validates the init parameters with Vault texts', async () => {
    const bad = h.sys(sysContracts.init, {
      operation: 'update',
      path: 'init',
      body: { secret_shares: 2, secret_threshold: 3 },
    });
    expect(await h.failure(bad)).toMatchObject({
      code: 'invalid_request',
      message: 'invalid seal configuration: threshold cannot be larger than shares',
    });
  });

  it('initialises, leaves the service sealed and refuses a second init', async () => {
    init = await h.initialise(5, 3);
    expect(init.keys).toHaveLength(5);
    expect(init.keys_base64).toHaveLength(5);
    expect(init.keys[0]).toMatch(/^[0-9a-f]{66}$/);
    expect(Buffer.from(init.keys_base64[0] ?? '', 'base64').toString('hex')).toBe(init.keys[0]);
    expect(init.root_token).toEqual(expect.any(String));
    expect(await status()).toMatchObject({
      initialized: true,
      sealed: true,
      t: 3,
      n: 5,
      progress: 0,
      nonce: '',
    });
    expect(await h.failure(h.initialise(1, 1))).toMatchObject({
      code: 'invalid_request',
      message: 'Vault is already initialized',
    });
    await waitFor(() => sealBroadcasts.some((b) => (b as { kind: string }).kind === 'seal'));
  });

  it('answers sealed health codes, honouring overrides and refusing non-integer codes', async () => {
    expect(await health()).toMatchObject({ status: 503, body: { initialized: true, sealed: true } });
    expect((await health({ sealedcode: '299' })).status).toBe(299);
    expect(await health({ activecode: 'abc' })).toMatchObject({
      kind: 'raw',
      status: 400,
      body: { errors: [] },
    });
    expect(
      await h.failure(h.sys(sysContracts.mountsList, { operation: 'read', path: 'mounts' })),
    ).toMatchObject({
      code: 'sealed',
    });
  });

  it('accumulates unseal progress, refuses duplicates and resets', async () => {
    const first = (await unseal({ key: init.keys[0] })).body as Record<string, unknown>;
    expect(first).toMatchObject({ sealed: true, progress: 1, t: 3 });
    expect(first['nonce']).toEqual(expect.any(String));
    expect(first['nonce']).not.toBe('');
    expect(await h.failure(unseal({ key: init.keys_base64[0] }))).toMatchObject({
      code: 'invalid_request',
      message: 'given key has already been provided during this unseal operation',
    });
    expect(await status()).toMatchObject({ progress: 1, nonce: first['nonce'] });
    expect((await unseal({ reset: true, key: init.keys[1] })).body).toMatchObject({ progress: 0, nonce: '' });
    expect(await h.failure(unseal({}))).toMatchObject({
      message: "'key' must be specified in request body as JSON, or 'reset' set to true",
    });
    expect(await h.failure(unseal({ key: '!!' }))).toMatchObject({
      message: "'key' must be a valid hex or base64 string",
    });
  });

  it('refuses a wrong set of shares once the threshold is reached and starts over', async () => {
    const forged = [1, 2, 3].map((x) => Buffer.concat([randomBytes(32), Buffer.from([x])]).toString('hex'));
    await unseal({ key: forged[0] });
    await unseal({ key: forged[1] });
    expect(await h.failure(unseal({ key: forged[2] }))).toMatchObject({
      code: 'invalid_request',
      message: 'Unseal failed, invalid key',
    });
    expect(await status()).toMatchObject({ sealed: true, progress: 0 });
  });

  it('unseals with the threshold of real shares (hex or base64)', async () => {
    await unseal({ key: init.keys[4] });
    await unseal({ key: init.keys_base64[2] });
    const open = (await unseal({ key: init.keys[0] })).body as Record<string, unknown>;
    expect(open).toMatchObject({ sealed: false, progress: 0, nonce: '', storage_type: 'postgresql' });
    expect(open['cluster_name']).toMatch(/^coffer-cluster-[0-9a-f]{8}$/);
    expect(open['cluster_id']).toEqual(expect.any(String));
    expect(await h.client.request(coreSealState, {})).toEqual({ initialized: true, sealed: false });
    expect(await health()).toMatchObject({
      status: 200,
      body: { sealed: false, cluster_name: open['cluster_name'] },
    });
    const resolved = await h.client.request(coreTokenResolve, { token: init.root_token });
    expect(resolved.policies).toEqual(['root']);
    const table = await h.client.request(coreMountTable, {});
    expect(table.mounts.map((m) => m.path).sort()).toEqual([
      'auth/token/',
      'cubbyhole/',
      'identity/',
      'sys/',
    ]);
  });

  it('reports and rotates the keyring term', async () => {
    const before = await h.sys(sysContracts.keyStatus, { operation: 'read', path: 'key-status' });
    expect(before).toMatchObject({ kind: 'injected', data: { term: 1, install_time: expect.any(String) } });
    const rotated = await h.sys(sysContracts.rotate, { operation: 'update', path: 'rotate' });
    expect(rotated).toMatchObject({ kind: 'injected', data: null });
    expect(
      (await h.sys(sysContracts.keyStatus, { operation: 'read', path: 'key-status' })).data,
    ).toMatchObject({ term: 2 });
    // data written under term 1 still reads, new writes use term 2
    const policies = await h.sys(sysContracts.policyRead, {
      operation: 'read',
      path: 'policies/acl/default',
      params: { name: 'default' },
    });
    expect(policies.data).toMatchObject({ name: 'default' });
  });

  it('seals (204) and unseals again with the same keys, keeping the rotated keyring', async () => {
    const sealed = await h.sys(sysContracts.seal, { operation: 'update', path: 'seal' });
    expect(sealed).toMatchObject({ kind: 'envelope', data: null, warnings: [] });
    expect(await status()).toMatchObject({ sealed: true });
    expect(await h.client.request(coreSealState, {})).toEqual({ initialized: true, sealed: true });
    expect((await health()).status).toBe(503);
    expect(await h.failure(h.client.request(coreMountTable, {}))).toMatchObject({ code: 'sealed' });
    await h.unseal(init.keys_base64.slice(0, 3));
    expect(await status()).toMatchObject({ sealed: false });
    expect(
      (await h.sys(sysContracts.keyStatus, { operation: 'read', path: 'key-status' })).data,
    ).toMatchObject({ term: 2 });
    expect((await h.client.request(coreTokenResolve, { token: init.root_token })).policies).toEqual(['root']);
  });
});
