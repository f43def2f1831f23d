import { z } from 'zod';
import {
  decodeContext,
  defineContract,
  DomainError,
  encodeContext,
  engineRequestSchema,
  type MountEntry,
} from '@coffer/contracts';
import { sysContracts } from '@coffer/contracts/core-sys';
import type { ForwardedWrite } from '@coffer/contracts/replication';
import type { ServiceRuntime } from '@coffer/event-store';
import { freePort, natsUrl, uniqueSubjectPrefix, waitFor } from '@coffer/testing';
import { connectNatsTransport, type Subscription, type Transport } from '@coffer/transport';
import { initialModeState, type ModeState, type PrimaryLink } from '../state/replication-state.decider';
import { WalSource } from '../wal/wal-source';
import { ClusterListener } from './cluster-listener';
import { ForwardingPool } from './forwarding-pool';
import { connectToPrimary } from './primary-connection';
import { StreamStatus } from './stream-status';
import { frame, frameReader, serverFrameSchema, type ServerFrame } from './stream.wire';
import { PRIMARY_UNREACHABLE, runForwarded } from './write-forwarding';

const PSK = Buffer.alloc(32, 9).toString('base64');

const mountOf = (over: Partial<MountEntry>): MountEntry => ({
  path: 'secret/',
  uuid: 'm-secret',
  accessor: 'kv_primary',
  type: 'kv',
  namespace: '',
  options: { version: '2' },
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
  ...over,
});

/**
 * Write forwarding over the real cluster connection: a primary's listener (TLS-PSK on a local
 * port) runs what a performance secondary forwards over its pooled connection on an engine served
 * over NATS, as the caller the secondary resolved; what the primary re-checks, what the secondary
 * is told when the primary refuses or cannot be reached, and how the pooled connection is shared,
 * re-opened and cut.
 */
describe('write forwarding: performance secondary -> primary (TLS-PSK + NATS)', () => {
  let transport: Transport;
  let listener: ClusterListener;
  const served: Subscription[] = [];
  const state: { current: ModeState } = { current: initialModeState('performance') };
  const sysMount = mountOf({ path: 'sys/', uuid: 'm-sys', accessor: 'system_primary', type: 'system' });
  const mounts = [mountOf({}), mountOf({ path: 'local/', uuid: 'm-local', local: true }), sysMount];
  const filtered = new Set<string>();
  let clusterAddr = '';
  /** what the engine received: the primary-side request and caller */
  const received: Array<{ mountAccessor: string; policies: string[] | undefined; path: string }> = [];
  /** writes to data/held-* wait here until released */
  const held = new Map<string, () => void>();
  const pools: ForwardingPool[] = [];

  const link = (): PrimaryLink => ({
    clusterId: 'set-1',
    secondaryId: 'perf-1',
    primaryClusterAddr: clusterAddr,
    primaryApiAddr: 'http://127.0.0.1:1',
    psk: PSK,
  });
  const self = { apiAddr: 'http://127.0.0.1:2', clusterAddr: '127.0.0.1:3' };
  const poolTo = (to: PrimaryLink = link()): ForwardingPool => {
    const pool = new ForwardingPool(to, self);
    pools.push(pool);
    return pool;
  };
  let pool: ForwardingPool;
  const forward = (w: ForwardedWrite, epoch = 1) => pool.forward(w, epoch);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );
  const countOf = (path: string) => received.filter((r) => r.path === path).length;

  const write = (
    path: string,
    mount: MountEntry = mountOf({ accessor: 'kv_secondary_copy' }),
  ): ForwardedWrite => ({
    subject: 'kv.v2.data.write',
    service: 'kv',
    request: {
      operation: 'create',
      mount,
      path: `data/${path}`,
      params: { path },
      body: {},
      query: {},
      headers: {},
    },
    context: encodeContext({
      requestId: 'r-1',
      path: `secret/data/${path}`,
      namespace: '',
      clientAddress: '127.0.0.1',
      policies: ['writer'],
      root: false,
      sudo: false,
      accessor: 'secondary-accessor',
    }),
  });

  beforeAll(async () => {
    transport = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: uniqueSubjectPrefix('repl-fwd'),
      name: 'repl-fwd',
    });
    const engine = defineContract('kv.v2.data.write', engineRequestSchema, z.record(z.string(), z.unknown()));
    served.push(
      transport.serve(engine, 'kv', async (req, headers) => {
        if (req.path === 'data/missing') throw new DomainError('not_found', '', null, ['no such thing']);
        if (req.path.startsWith('data/held-'))
          await new Promise<void>((resolve) => held.set(req.path, resolve));
        received.push({
          mountAccessor: req.mount.accessor,
          policies: decodeContext(headers)?.policies,
          path: req.path,
        });
        return { data: { version: 1, path: req.path } };
      }),
      transport.serve(sysContracts.policyWrite, 'core-sys', async (req, headers) => {
        received.push({
          mountAccessor: req.mount.accessor,
          policies: decodeContext(headers)?.policies,
          path: req.path,
        });
        return { data: null };
      }),
    );
    clusterAddr = `127.0.0.1:${await freePort()}`;
    state.current = {
      ...initialModeState('performance'),
      state: 'primary',
      clusterId: 'set-1',
      secondaries: [{ id: 'perf-1', psk: PSK, expiresAtMs: Date.now() + 60_000 }],
      epoch: 1,
    };
    const runtime = { transport } as unknown as ServiceRuntime;
    listener = new ClusterListener({
      wal: new WalSource(runtime),
      status: new StreamStatus(),
      stateOf: (mode) => (mode === 'performance' ? state.current : undefined),
      filterFor: () => ({ excludedMountUuids: filtered, mounts: [], namespaces: [] }),
      keyrings: async () => [],
      stepDown: async () => undefined,
      attachments: async () => [],
      forward: (id, forward) =>
        runForwarded(
          {
            transport,
            mounts: async () => mounts,
            filterFor: () => ({ excludedMountUuids: filtered, mounts: [], namespaces: [] }),
            head: async (schema) => (schema === 'kv' ? 42 : schema === 'core_sys' ? 7 : 0),
          },
          id,
          forward,
        ),
    });
    await listener.start(clusterAddr);
    pool = poolTo();
  });

  afterAll(async () => {
    for (const p of pools) p.close();
    await listener?.stop();
    for (const s of served) s.unsubscribe();
    await transport?.close();
  });

  it("runs the write on the primary's engine as the resolved caller, with the primary's mount, and answers its index", async () => {
    const answer = await forward(write('a'));
    expect(answer.answer).toMatchObject({ data: { version: 1 } });
    expect(answer.index).toEqual({ source: 'kv', wal: 42 });
    // the caller context the secondary resolved (no token anywhere), the primary's own mount entry
    expect(received.at(-1)).toEqual({ mountAccessor: 'kv_primary', policies: ['writer'], path: 'data/a' });
  });

  it("runs a replicated core-sys write (an ACL policy) on the primary's core-sys, and answers core-sys's index", async () => {
    const policy: ForwardedWrite = {
      ...write('p'),
      subject: sysContracts.policyWrite.subject,
      service: 'core-sys',
      request: {
        ...write('p').request,
        operation: 'update',
        mount: { ...sysMount, accessor: 'system_secondary_copy' },
        path: 'policies/acl/reader',
        params: { name: 'reader' },
        body: { policy: 'path "secret/*" { capabilities = ["read"] }' },
      },
    };
    const answer = await forward(policy);
    expect(answer.index).toEqual({ source: 'core_sys', wal: 7 });
    expect(received.at(-1)).toEqual({
      mountAccessor: 'system_primary',
      policies: ['writer'],
      path: 'policies/acl/reader',
    });
  });

  it("refuses a core-sys write that is the secondary's own (sealing, a local mount) without running it", async () => {
    const calls = received.length;
    const base = write('s').request;
    const seal: ForwardedWrite = {
      ...write('s'),
      subject: sysContracts.seal.subject,
      service: 'core-sys',
      request: { ...base, operation: 'update', mount: sysMount, path: 'seal', params: {} },
    };
    const sealed = await forward(seal).catch((e: unknown) => e);
    expect(sealed).toMatchObject({
      code: 'invalid_request',
      message: /writes to core-sys are not forwarded/,
    });
    const enableLocal: ForwardedWrite = {
      ...seal,
      subject: sysContracts.mountEnable.subject,
      request: {
        ...seal.request,
        path: 'mounts/mine',
        params: { path: 'mine' },
        body: { type: 'kv', local: true },
      },
    };
    const local = await forward(enableLocal).catch((e: unknown) => e);
    expect(local).toMatchObject({
      code: 'invalid_request',
      message: /local mount is enabled on the secondary/,
    });
    expect(received.length).toBe(calls);
  });

  it("brings the engine's refusal back as the same domain error", async () => {
    const error = await forward(write('missing')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'not_found', warnings: ['no such thing'] });
  });

  it('refuses a local or filtered mount, and a mount the primary does not have, without calling the engine', async () => {
    const calls = received.length;
    const local = await forward(write('b', mountOf({ uuid: 'm-local' }))).catch((e: unknown) => e);
    expect(local).toMatchObject({ code: 'invalid_request', message: /the mount is local/ });
    const unknown = await forward(write('c', mountOf({ uuid: 'm-gone' }))).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'invalid_request', message: /no such mount on the primary/ });
    filtered.add('m-secret');
    try {
      const hidden = await forward(write('d')).catch((e: unknown) => e);
      expect(hidden).toMatchObject({ code: 'invalid_request', message: /filtered out for this secondary/ });
    } finally {
      filtered.delete('m-secret');
    }
    expect(received.length).toBe(calls);
  });

  it('refuses a revoked secondary on its open connection and at the handshake, and tells the secondary when the primary cannot be reached (503)', async () => {
    const calls = received.length;
    await forward(write('open'));
    state.current = { ...state.current, revoked: ['perf-1'] };
    try {
      // checked on every write: the open connection is refused (and cut) before the write runs
      const revoked = await failure(forward(write('e')));
      expect(revoked).toMatchObject({
        code: 'service_unavailable',
        message: 'the performance primary refused the write: this secondary has been revoked',
      });
      // and a new connection fails the TLS-PSK handshake
      const again = await failure(forward(write('e2')));
      expect(again).toMatchObject({ code: 'service_unavailable', message: PRIMARY_UNREACHABLE });
    } finally {
      state.current = { ...state.current, revoked: [] };
    }
    // a secondary that has seen a later epoch does not write through a superseded primary
    const stale = await failure(forward(write('f'), 5));
    expect(stale).toMatchObject({ code: 'service_unavailable', message: /superseded/ });
    const down = await failure(
      poolTo({ ...link(), primaryClusterAddr: `127.0.0.1:${await freePort()}` }).forward(write('g'), 1),
    );
    expect(down).toMatchObject({ code: 'service_unavailable', message: PRIMARY_UNREACHABLE });
    expect(received.length).toBe(calls + 1);
  });

  it('carries many concurrent writes over one TLS-PSK connection, each answer matched to its write', async () => {
    const before = listener.counts;
    const shared = poolTo();
    const paths = Array.from({ length: 40 }, (_, i) => `held-${i}`);
    const answers = paths.map((p) => shared.forward(write(p), 1));
    // all 40 are running on the primary at once, then finish in reverse order
    await waitFor(() => held.size === paths.length, { message: 'the writes in flight' });
    for (const p of [...paths].reverse()) held.get(`data/${p}`)?.();
    held.clear();
    const done = await Promise.all(answers);
    expect(done.map((a) => a.answer.data)).toEqual(paths.map((p) => ({ version: 1, path: `data/${p}` })));
    const after = listener.counts;
    expect(after.connections - before.connections).toBe(1);
    expect(after.forwardingConnections - before.forwardingConnections).toBe(1);
    expect(after.forwardedWrites - before.forwardedWrites).toBe(paths.length);
    expect(shared.connected).toBe(true);
  });

  it('opens a new connection after a drop; a write in flight during the drop fails and is applied once, never re-sent', async () => {
    const dropping = poolTo();
    await dropping.forward(write('before-drop'), 1);
    const before = listener.counts;
    const inFlight = failure(dropping.forward(write('held-drop'), 1));
    await waitFor(() => held.has('data/held-drop'), { message: 'the write on the primary' });
    await listener.stop(); // the primary restarts: its connections drop
    expect(await inFlight).toMatchObject({ code: 'service_unavailable', message: PRIMARY_UNREACHABLE });
    held.get('data/held-drop')?.(); // the primary's engine call completes: the write was applied
    held.clear();
    await listener.start(clusterAddr);
    await waitFor(() => !dropping.connected, { message: 'the drop seen by the secondary' });
    const after = await dropping.forward(write('after-drop'), 1);
    expect(after.answer.data).toEqual({ version: 1, path: 'data/after-drop' });
    expect(listener.counts.connections - before.connections).toBe(1);
    expect(countOf('data/held-drop')).toBe(1);
  });

  it('cuts the pooled connection of a revoked secondary (answering the write it was running, refusing the rest), and of a primary whose epoch moved', async () => {
    const cut = poolTo();
    await cut.forward(write('before-revoke'), 1);
    expect(cut.connected).toBe(true);
    const running = cut.forward(write('held-revoke'), 1);
    await waitFor(() => held.has('data/held-revoke'), { message: 'the write on the primary' });
    state.current = { ...state.current, revoked: ['perf-1'] };
    try {
      listener.enforce(); // the supervisor's pass after the revoke
      // sent on the connection being cut: not run, and refused with the reason
      const late = failure(cut.forward(write('after-cut'), 1));
      held.get('data/held-revoke')?.();
      held.clear();
      // the write already running when the cut came is answered before the refusal
      expect((await running).answer.data).toEqual({ version: 1, path: 'data/held-revoke' });
      expect(await late).toMatchObject({
        code: 'service_unavailable',
        message: 'the performance primary refused the write: this secondary has been revoked',
      });
      expect(countOf('data/after-cut')).toBe(0);
      await waitFor(() => !cut.connected, { message: 'the connection cut' });
      const refused = await failure(cut.forward(write('while-revoked'), 1));
      expect(refused).toMatchObject({ code: 'service_unavailable', message: PRIMARY_UNREACHABLE });
    } finally {
      state.current = { ...state.current, revoked: [] };
    }
    expect(countOf('data/while-revoked')).toBe(0);
    await cut.forward(write('readmitted'), 1);
    // a demote or promote moves the epoch: a connection opened before it carries no more writes
    state.current = { ...state.current, epoch: 2 };
    try {
      listener.enforce();
      await waitFor(() => !cut.connected, { message: 'the connection cut' });
      const next = await cut.forward(write('new-epoch'), 2);
      expect(next.answer.data).toEqual({ version: 1, path: 'data/new-epoch' });
    } finally {
      state.current = { ...state.current, epoch: 1 };
    }
  });

  it('refuses a secondary speaking the one-write-per-connection protocol, with a reason', async () => {
    const socket = connectToPrimary(link(), 'performance');
    const frames: ServerFrame[] = [];
    socket.on(
      'data',
      frameReader(
        serverFrameSchema,
        (f) => frames.push(f),
        () => socket.destroy(),
      ),
    );
    socket.on('secureConnect', () =>
      socket.write(
        frame({
          t: 'hello',
          mode: 'performance',
          clusterId: 'set-1',
          secondaryId: 'perf-1',
          ...self,
          positions: [],
          epoch: 1,
          forward: write('v1'),
        }),
      ),
    );
    await new Promise((resolve) => socket.on('close', resolve));
    expect(frames).toEqual([
      expect.objectContaining({
        t: 'refused',
        reason: expect.stringMatching(/protocol 2 and the secondary 1/),
      }),
    ]);
    expect(countOf('data/v1')).toBe(0);
  });
});
