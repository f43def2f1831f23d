import {
  coreMountTable,
  coreTokenResolve,
  mountDisabled,
  sysContracts,
  type MountEntry,
} from '@coffer/contracts';
import { waitFor } from '@coffer/testing';
import { replicaApplyContract } from '@coffer/contracts/replication';
import { CORE_SYS_SCHEMA } from '../migrations';
import { startReplicaPair, type coreSysShipper, type ReplicaPair } from '../test-support/core-sys-shipper';
import { CoreSysHarness } from '../test-support/core-sys-harness';

/**
 * Two core-sys services, each with its own database, barrier and root token: the primary's
 * core-sys log is shipped as the replication service ships it (rows as stored, payloads opened
 * with the primary's keyring), and the secondary's core-sys replays it with its own projections
 * into its read models, keeping the primary's rows in its replica log and its own state local.
 */
describe('core-sys replica: the primary mount table and policies replayed on a secondary (NATS + Postgres)', () => {
  let primary: CoreSysHarness;
  let secondary: CoreSysHarness;
  let secondaryRoot: string;
  let shipper: ReturnType<typeof coreSysShipper>;
  const apply = replicaApplyContract(CORE_SYS_SCHEMA);
  const ship = (mode: 'dr' | 'performance') => shipper.ship(mode);

  let pair: ReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startReplicaPair('cs_repl');
    ({ primary, secondary, secondaryRoot, shipper } = pair);
  }, 120_000);
  afterAll(() => pair?.close(), 30_000);

  const mounts = async (h: CoreSysHarness): Promise<Map<string, MountEntry>> =>
    new Map((await h.client.request(coreMountTable, {})).mounts.map((m) => [m.path, m]));
  const enable = (path: string, body: Record<string, unknown>) =>
    primary.sys(sysContracts.mountEnable, {
      operation: 'update',
      path: `mounts/${path}`,
      params: { path },
      body,
    });

  it('performance: the primary mounts (local ones left out) and policies arrive; tokens stay local', async () => {
    await enable('team-kv', { type: 'kv', options: { version: '2' } });
    await enable('only-here', { type: 'kv', local: true });
    await primary.sys(sysContracts.policyWrite, {
      operation: 'update',
      path: 'policies/acl/reader',
      params: { name: 'reader' },
      body: { policy: 'path "team-kv/*" { capabilities = ["read"] }' },
    });
    await secondary.sys(sysContracts.mountEnable, {
      operation: 'update',
      path: 'mounts/mine',
      params: { path: 'mine' },
      body: { type: 'kv', local: true },
    });

    expect((await secondary.client.request(apply, { op: 'wipe', mode: 'performance' })).lastWal).toBe(0);
    const head = await ship('performance');
    expect(head).toEqual(await shipper.log.head());
    // redelivery applies nothing twice
    expect(await ship('performance')).toEqual(head);

    const p = await mounts(primary);
    const s = await mounts(secondary);
    expect(s.get('team-kv/')?.uuid).toBe(p.get('team-kv/')?.uuid);
    expect(s.get('sys/')?.uuid).toBe(p.get('sys/')?.uuid);
    expect(s.has('only-here/')).toBe(false);
    // the secondary's own local mount and root token are untouched
    expect(s.has('mine/')).toBe(true);
    const resolved = await secondary.client.request(coreTokenResolve, { token: secondaryRoot });
    expect(resolved.policies).toContain('root');
    const policy = await secondary.sys(sysContracts.policyRead, {
      operation: 'read',
      path: 'policies/acl/reader',
      params: { name: 'reader' },
    });
    expect(policy.data).toEqual(expect.objectContaining({ name: 'reader' }));
    // its own mount changes still append (the revision is its own log's)
    await secondary.sys(sysContracts.mountEnable, {
      operation: 'update',
      path: 'mounts/mine-too',
      params: { path: 'mine-too' },
      body: { type: 'kv', local: true },
    });
    expect((await mounts(secondary)).has('mine-too/')).toBe(true);
  });

  it("performance: a mount the primary disables is purged by the secondary's services (told it was replicated)", async () => {
    await enable('short-lived', { type: 'kv', options: { version: '2' } });
    await ship('performance');
    const told: Array<{ path: string; replicated?: boolean }> = [];
    const sub = secondary.client.subscribe(mountDisabled, (event) => {
      told.push(event);
    });
    try {
      await primary.sys(sysContracts.mountDisable, {
        operation: 'delete',
        path: 'mounts/short-lived',
        params: { path: 'short-lived' },
      });
      await ship('performance');
      await waitFor(() => told.some((e) => e.path === 'short-lived/'), { timeoutMs: 10_000 });
      expect(told.find((e) => e.path === 'short-lived/')).toEqual(
        expect.objectContaining({ type: 'kv', replicated: true }),
      );
      expect((await mounts(secondary)).has('short-lived/')).toBe(false);
    } finally {
      sub.unsubscribe();
    }
  });

  it('a wipe clears what was replicated and keeps the built-ins and local mounts', async () => {
    const head = await secondary.client.request(apply, { op: 'wipe', mode: 'performance' });
    expect(head.lastWal).toBe(0);
    const s = await mounts(secondary);
    expect(s.has('team-kv/')).toBe(false);
    expect(s.has('mine/')).toBe(true);
    expect(s.has('sys/')).toBe(true);
  });

  it('DR: local mounts of the primary arrive too', async () => {
    await ship('dr');
    const s = await mounts(secondary);
    expect(s.get('only-here/')?.uuid).toBe((await mounts(primary)).get('only-here/')?.uuid);
  });
});
