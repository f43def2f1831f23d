import {
  coreMountTable,
  leaseContracts,
  namespaceContracts,
  sysContracts,
  tokenContracts,
  type Contract,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';
import { LeaseManager } from './lease-manager';

jest.setTimeout(60_000);

let h: DevCoreSysHarness;
let engine: LeaseTestEngine;

beforeAll(async () => {
  h = await startCoreSysHarness('lease_manager');
  engine = new LeaseTestEngine(h.client);
  await h.client.flush();
});

afterAll(async () => {
  engine?.stop();
  await h?.close();
});

const issueAs = async (token: string, path: string, secret: Record<string, unknown>) =>
  registerTestLease(h.client, await h.callerFor(token), path, secret);
const sys = (contract: Contract, path: string, extra: Record<string, unknown> = {}): Promise<any> =>
  h.call(contract, { mount: h.mount('sys/'), path, ...extra });
const exists = async (leaseId: string) => {
  try {
    await sys(leaseContracts.lookup, 'leases/lookup', { body: { lease_id: leaseId } });
    return true;
  } catch {
    return false;
  }
};
const advance = (seconds: number) => {
  h.clock.now = new Date(h.clock.now.getTime() + seconds * 1000);
};
const createToken = async (token: string) => {
  const res = await h.call(
    tokenContracts.create,
    { mount: h.mount('auth/token/'), path: 'create', body: { policies: ['default'] } },
    await h.callerFor(token),
  );
  return res.auth?.client_token ?? '';
};

it('this single replica is the active lease manager', () => {
  expect(h.app.get(LeaseManager).active).toBe(true);
});

it('revokes a lease through the engine when it expires, once', async () => {
  const lease = await issueAs(h.rootToken, 'dyn/creds/short', { ttl: 5, internal: { user: 'tmp' } });
  expect(await exists(lease.lease_id)).toBe(true);
  advance(6);
  await waitFor(() => engine.revokedIds().includes(lease.lease_id), { message: 'engine revoke' });
  // the engine answers before core-sys records the revocation
  await waitFor(async () => !(await exists(lease.lease_id)), { message: 'lease gone' });
  expect(engine.revoked.filter((r) => r.lease_id === lease.lease_id)).toEqual([
    expect.objectContaining({ internal: { user: 'tmp' } }),
  ]);
});

it('retries a failing revocation with back-off, then marks the lease irrevocable', async () => {
  const lease = await issueAs(h.rootToken, 'dyn/creds/stuck', { ttl: 1 });
  engine.failRevoke = 'backend unavailable';
  try {
    advance(2);
    const count = () =>
      sys(leaseContracts.count, 'leases/count', { operation: 'read', query: { type: 'irrevocable' } });
    // each retry waits longer (1s, 2s, 4s ... on the core-sys clock): move the clock on until given up
    await waitFor(
      async () => {
        advance(120);
        return (await count()).data.lease_count === 1;
      },
      { timeoutMs: 20_000, intervalMs: 300, message: 'irrevocable' },
    );
    expect((await count()).data.counts).toEqual({ leasetest_0001: 1 });
    const listed = await sys(leaseContracts.list, 'leases', {
      operation: 'read',
      query: { type: 'irrevocable' },
    });
    // Vault's leaseResponse (lease_id, mount_id, error) and the lease's namespace path ("" root)
    expect(listed.data.leases).toEqual([
      { lease_id: lease.lease_id, error: 'backend unavailable', mount_id: 'leasetest_0001', namespace: '' },
    ]);
    const looked = await sys(leaseContracts.lookup, 'leases/lookup', { body: { lease_id: lease.lease_id } });
    expect(looked.data).toMatchObject({ id: lease.lease_id, renewable: false });
  } finally {
    engine.failRevoke = undefined;
  }
  // irrevocable leases are left alone by the manager; revoke-force removes them
  await sys(leaseContracts.revokeForce, 'leases/revoke-force/dyn/creds/stuck', {
    params: { prefix: 'dyn/creds/stuck' },
  });
  expect(await exists(lease.lease_id)).toBe(false);
});

it('revoking a token revokes its leases, and a parent its children’s', async () => {
  const parent = await createToken(h.rootToken);
  const child = await createToken(parent);
  const own = await issueAs(parent, 'dyn/creds/parent', { ttl: 3600 });
  const childs = await issueAs(child, 'dyn/creds/child', { ttl: 3600 });
  const unrelated = await issueAs(h.rootToken, 'dyn/creds/root', { ttl: 3600 });
  await h.call(tokenContracts.revoke, {
    mount: h.mount('auth/token/'),
    path: 'revoke',
    body: { token: parent },
  });
  await waitFor(
    () => engine.revokedIds().includes(own.lease_id) && engine.revokedIds().includes(childs.lease_id),
    { message: 'token leases revoked' },
  );
  await waitFor(async () => !(await exists(own.lease_id)) && !(await exists(childs.lease_id)), {
    message: 'leases gone',
  });
  expect(await exists(unrelated.lease_id)).toBe(true);
});

it('disabling a mount revokes its leases', async () => {
  await sys(sysContracts.mountEnable, 'mounts/dynkv', { params: { path: 'dynkv' }, body: { type: 'kv' } });
  const entry = (await h.client.request(coreMountTable, {})).mounts.find((m) => m.path === 'dynkv/');
  if (!entry) throw new Error('no dynkv/ mount');
  const lease = await registerTestLease(
    h.client,
    await h.callerFor(h.rootToken),
    'dynkv/creds/a',
    { ttl: 3600 },
    entry,
  );
  await sys(sysContracts.mountDisable, 'mounts/dynkv', { operation: 'delete', params: { path: 'dynkv' } });
  await waitFor(() => engine.revokedIds().includes(lease.lease_id), { message: 'engine revoke' });
  await waitFor(async () => !(await exists(lease.lease_id)), { message: 'lease gone' });
});

it('names the namespace of each irrevocable lease, listed from the namespace or its parent', async () => {
  const created = await sys(namespaceContracts.create, 'namespaces/irr', { params: { path: 'irr' } });
  const nsId = (created.data as { id: string }).id;
  const inIrr = { ...h.mount('sys/'), namespace: 'irr/' };
  await h.call(
    sysContracts.mountEnable,
    { mount: inIrr, path: 'mounts/dynns', params: { path: 'dynns' }, body: { type: 'kv' } },
    { ...(await h.callerFor(h.rootToken)), namespace: 'irr/' },
  );
  const entry = (await h.client.request(coreMountTable, {})).mounts.find(
    (m) => m.namespace === 'irr/' && m.path === 'dynns/',
  );
  if (!entry) throw new Error('no irr/dynns/ mount');
  const lease = await registerTestLease(
    h.client,
    await h.callerFor(h.rootToken),
    'dynns/creds/stuck',
    { ttl: 1 },
    entry,
  );
  expect(lease.lease_id.endsWith(`.${nsId}`)).toBe(true);
  engine.failRevoke = 'backend unavailable';
  const list = (mount: typeof inIrr, children: boolean) =>
    h.call(leaseContracts.list, {
      mount,
      path: 'leases',
      operation: 'read',
      query: { type: 'irrevocable', ...(children ? { include_child_namespaces: 'true' } : {}) },
    }) as Promise<{ data: { leases: { lease_id: string; namespace: string }[] } }>;
  try {
    await waitFor(
      async () => {
        advance(120);
        return (await list(inIrr, false)).data.leases.length === 1;
      },
      { timeoutMs: 20_000, intervalMs: 300, message: 'irrevocable in irr/' },
    );
  } finally {
    engine.failRevoke = undefined;
  }
  expect((await list(inIrr, false)).data.leases).toEqual([
    { lease_id: lease.lease_id, mount_id: entry.accessor, error: 'backend unavailable', namespace: 'irr/' },
  ]);
  const fromRoot = (await list(h.mount('sys/'), true)).data.leases;
  expect(fromRoot.find((l) => l.lease_id === lease.lease_id)?.namespace).toBe('irr/');
  // without include_child_namespaces the root lists its own only
  expect((await list(h.mount('sys/'), false)).data.leases.map((l) => l.lease_id)).not.toContain(
    lease.lease_id,
  );
  await sys(leaseContracts.revokeForce, 'leases/revoke-force/dynns/creds/stuck', {
    params: { prefix: 'dynns/creds/stuck' },
  });
  expect(await exists(lease.lease_id)).toBe(false);
});
