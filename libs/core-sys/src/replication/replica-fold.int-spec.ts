import { sql } from 'kysely';
import {
  coreMountTable,
  coreTokenResolve,
  sysContracts,
  tokenContracts,
  userpassContracts,
  type CallerContext,
  type MountInfo,
} from '@coffer/contracts';
import {
  replicaApplyContract,
  replicaFoldContract,
  type ReplicaFoldEvent,
} from '@coffer/contracts/replication';
import { EventRegistry, EventStore, openReplicaPayload } from '@coffer/event-store';
import { CORE_SYS_SCHEMA } from '../migrations';
import { coreSysShipper } from '../test-support/core-sys-shipper';
import { CoreSysHarness, ROOT_CALLER } from '../test-support/core-sys-harness';
import { CORE_SYS_REPLICA_SCHEMA } from './core-sys.replay';

/**
 * The promotion fold: a DR secondary (B) of a primary (A) is promoted and folds what it replayed
 * into its own core-sys log; a performance secondary (C) that then follows B re-syncs core-sys
 * from B's own log alone and serves A's mounts, users and policies, and B's later writes.
 */
describe('core-sys promotion fold: the replicated state into the promoted cluster own log (NATS + Postgres)', () => {
  let a: CoreSysHarness;
  let b: CoreSysHarness;
  let c: CoreSysHarness;
  const roots: string[] = [];
  const apply = replicaApplyContract(CORE_SYS_SCHEMA);
  const fold = replicaFoldContract(CORE_SYS_SCHEMA);
  const caller = (): CallerContext => ({ ...ROOT_CALLER, requestId: `r-${Math.random()}` });
  const anonymous = (): CallerContext => ({ ...caller(), policies: [], root: false, sudo: false });

  beforeAll(async () => {
    a = await CoreSysHarness.start('cs_fold_a');
    b = await CoreSysHarness.start('cs_fold_b');
    c = await CoreSysHarness.start('cs_fold_c');
    for (const h of [a, b, c]) {
      const init = await h.initialise(1, 1);
      await h.unseal(init.keys);
      roots.push(init.root_token);
    }
  }, 180_000);
  afterAll(async () => {
    for (const h of [a, b, c]) await h?.close();
  }, 30_000);

  const mounts = async (h: CoreSysHarness) =>
    new Map((await h.client.request(coreMountTable, {})).mounts.map((m) => [m.path, m]));
  const mountInfo = async (h: CoreSysHarness, path: string): Promise<MountInfo> => {
    const m = (await mounts(h)).get(path);
    if (!m) throw new Error(`no mount ${path}`);
    const { uuid, accessor, type, namespace, options, config } = m;
    return { path, uuid, accessor, type, namespace, options, config };
  };
  const enableMount = (h: CoreSysHarness, path: string, body: Record<string, unknown>) =>
    h.sys(sysContracts.mountEnable, { operation: 'update', path: `mounts/${path}`, params: { path }, body });
  const writePolicy = (h: CoreSysHarness, name: string, policy: string) =>
    h.sys(sysContracts.policyWrite, {
      operation: 'update',
      path: `policies/acl/${name}`,
      params: { name },
      body: { policy },
    });
  const readPolicy = (h: CoreSysHarness, name: string) =>
    h.sys(sysContracts.policyRead, { operation: 'read', path: `policies/acl/${name}`, params: { name } });
  const login = async (h: CoreSysHarness, username: string, password: string) =>
    h.call(
      userpassContracts.login,
      {
        mount: await mountInfo(h, 'auth/userpass/'),
        path: `login/${username}`,
        params: { username },
        body: { password },
      },
      anonymous(),
    );
  /** B's own core-sys log, version of a stream */
  const ownVersion = async (h: CoreSysHarness, stream: string): Promise<number> => {
    const { rows } = await sql<{ v: number | null }>`
      select max(stream_version) as v from core_sys.event_log where stream = ${stream}`.execute(
      h.replica(0).db.db,
    );
    return Number(rows[0]?.v ?? 0);
  };

  /** What the replication service sends: B's replica log after `after`, opened with A's keyring. */
  const replicaRows = async (after: number): Promise<ReplicaFoldEvent[]> => {
    const log = new EventStore({
      db: b.replica(0).db.db,
      schema: CORE_SYS_REPLICA_SCHEMA,
      cipher: b.replica(0).barrier,
      registry: new EventRegistry([]),
    });
    const rows = await log.readRawFrom(after, 10_000);
    return rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      streamVersion: r.streamVersion,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(a.replica(0).barrier, CORE_SYS_SCHEMA, r),
    }));
  };
  const foldOnB = async (events: ReplicaFoldEvent[], batch: number): Promise<number> => {
    let appended = 0;
    for (let i = 0; i < events.length; i += batch) {
      const slice = events.slice(i, i + batch);
      const through = slice.at(-1)?.wal ?? 0;
      appended += (await b.client.request(fold, { op: 'fold', mode: 'dr', events: slice, through })).appended;
    }
    return appended;
  };

  let primaryToken = '';
  /** a second token of A's, kept (the first is revoked on B) */
  let keptToken = '';
  let entityId = '';

  it('a promoted DR secondary folds the replica log into its own log, idempotently', async () => {
    // on A: a kv mount, userpass with a user, a policy, a token role, a login (token + entity)
    await enableMount(a, 'team-kv', { type: 'kv', options: { version: '2' } });
    await a.sys(sysContracts.authEnable, {
      operation: 'update',
      path: 'auth/userpass',
      params: { path: 'userpass' },
      body: { type: 'userpass' },
    });
    await a.call(
      userpassContracts.userWrite,
      {
        mount: await mountInfo(a, 'auth/userpass/'),
        path: 'users/alice',
        params: { username: 'alice' },
        body: { password: 'pw-a', token_policies: 'reader' },
      },
      caller(),
    );
    await writePolicy(a, 'reader', 'path "team-kv/*" { capabilities = ["read"] }');
    await a.sys(tokenContracts.roleWrite, {
      operation: 'update',
      path: 'auth/token/roles/ops',
      params: { name: 'ops' },
      body: { allowed_policies: 'ops' },
    });
    const first = await login(a, 'alice', 'pw-a');
    primaryToken = first.auth?.client_token ?? '';
    entityId = first.auth?.entity_id ?? '';
    expect(primaryToken).not.toBe('');
    keptToken = (await login(a, 'alice', 'pw-a')).auth?.client_token ?? '';

    // B had a mount of its own before it became A's DR secondary (wiped there, still in its log)
    await enableMount(b, 'b-only', { type: 'kv' });
    expect((await b.client.request(apply, { op: 'wipe', mode: 'dr' })).lastWal).toBe(0);
    await coreSysShipper(a, b).ship('dr');
    expect((await mounts(b)).has('b-only/')).toBe(false);

    // promoted: the fold, in small batches (a stream spans several), as a retry after a crash
    // that left the position behind (the first half again), then once more in full
    const rows = await replicaRows(0);
    expect(rows.length).toBeGreaterThan(14);
    const half = rows.slice(0, Math.ceil(rows.length / 2));
    const appended = (await foldOnB(half, 7)) + (await foldOnB(rows, 5));
    expect(appended).toBeGreaterThan(0);
    expect(await foldOnB(rows, 500)).toBe(0);
    expect((await b.client.request(fold, { op: 'position' })).foldedThrough).toBe(rows.at(-1)?.wal);
    // each replicated stream holds A's events once, at B's versions
    const alice = `userpass-user/${(await mountInfo(a, 'auth/userpass/')).uuid}/alice`;
    expect(await ownVersion(b, alice)).toBe(await ownVersion(a, alice));
    expect(await ownVersion(b, 'policy/acl/reader')).toBe(await ownVersion(a, 'policy/acl/reader'));

    // B serves as before, and writes to replicated rows append at the folded versions
    const served = await mounts(b);
    expect(served.get('team-kv/')?.uuid).toBe((await mounts(a)).get('team-kv/')?.uuid);
    await b.call(
      userpassContracts.userPassword,
      {
        mount: await mountInfo(b, 'auth/userpass/'),
        path: 'users/alice/password',
        params: { username: 'alice' },
        body: { password: 'pw-b' },
      },
      caller(),
    );
    expect((await login(b, 'alice', 'pw-b')).auth?.policies).toContain('reader');
    await writePolicy(b, 'reader', 'path "team-kv/*" { capabilities = ["read", "list"] }');
    await enableMount(b, 'after-promotion', { type: 'kv' });
    // A's token works on B, and its revoke appends after the folded events
    expect((await b.client.request(coreTokenResolve, { token: primaryToken })).policies).toContain('reader');
    await b.sys(tokenContracts.revoke, {
      operation: 'update',
      path: 'auth/token/revoke',
      body: { token: primaryToken },
    });
    await expect(b.client.request(coreTokenResolve, { token: primaryToken })).rejects.toThrow();
    expect(await foldOnB(rows, 500)).toBe(0);
  });

  it("a performance secondary that follows the promoted cluster gets the former primary's state from its log alone", async () => {
    const shipper = coreSysShipper(b, c);
    expect((await c.client.request(apply, { op: 'wipe', mode: 'performance' })).lastWal).toBe(0);
    const head = await shipper.ship('performance');
    // C's copy is B's own log, whole
    expect(head).toEqual(await shipper.log.head());

    const onB = await mounts(b);
    const onC = await mounts(c);
    for (const path of ['team-kv/', 'auth/userpass/', 'after-promotion/', 'sys/', 'identity/', 'auth/token/'])
      expect([path, onC.get(path)?.uuid]).toEqual([path, onB.get(path)?.uuid]);
    expect(onC.has('b-only/')).toBe(false);
    // A's user (with B's later password), A's policy (as B rewrote it), A's token role, A's entity
    const there = await login(c, 'alice', 'pw-b');
    expect(there.auth?.policies).toContain('reader');
    expect(there.auth?.entity_id).toBe(entityId);
    expect((await readPolicy(c, 'reader')).data).toEqual(
      expect.objectContaining({ policy: expect.stringContaining('"list"') }),
    );
    const role = await c.sys(tokenContracts.roleRead, {
      operation: 'read',
      path: 'auth/token/roles/ops',
      params: { name: 'ops' },
    });
    expect(role.data).toEqual(expect.objectContaining({ allowed_policies: ['ops'] }));
    // C's own root token still works
    expect((await c.client.request(coreTokenResolve, { token: roots[2] ?? '' })).policies).toContain('root');
  });

  it("a DR secondary of the promoted cluster gets the former primary's tokens, looked up under its folded salt", async () => {
    const shipper = coreSysShipper(b, c);
    expect((await c.client.request(apply, { op: 'wipe', mode: 'dr' })).lastWal).toBe(0);
    await shipper.ship('dr');
    expect(await shipper.ship('dr')).toEqual(await shipper.log.head());
    const resolve = (token: string) => c.client.request(coreTokenResolve, { token });
    // A's token (hashed with A's salt), B's root token (B's salt), C's own root token
    expect((await resolve(keptToken)).policies).toContain('reader');
    expect((await resolve(roots[1] ?? '')).policies).toContain('root');
    expect((await resolve(roots[2] ?? '')).policies).toContain('root');
    // the token B revoked after the promotion stays revoked
    await expect(resolve(primaryToken)).rejects.toThrow();
  });
});
