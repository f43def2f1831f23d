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
import { freePort, natsUrl, uniqueSubjectPrefix } from '@coffer/testing';
import { connectNatsTransport, type Subscription, type Transport } from '@coffer/transport';
import { initialModeState, type ModeState, type PrimaryLink } from '../state/replication-state.decider';
import { WalSource } from '../wal/wal-source';
import { ClusterListener } from './cluster-listener';
import { StreamStatus } from './stream-status';
import { forwardToPrimary, PRIMARY_UNREACHABLE, runForwarded } from './write-forwarding';

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
 * port) runs what a performance secondary forwards on an engine served over NATS, as the caller
 * the secondary resolved; what the primary re-checks, and what the secondary is told when the
 * primary refuses or cannot be reached.
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

  const link = (): PrimaryLink => ({
    clusterId: 'set-1',
    secondaryId: 'perf-1',
    primaryClusterAddr: clusterAddr,
    primaryApiAddr: 'http://127.0.0.1:1',
    psk: PSK,
  });
  const self = { apiAddr: 'http://127.0.0.1:2', clusterAddr: '127.0.0.1:3', epoch: 1 };

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
        received.push({
          mountAccessor: req.mount.accessor,
          policies: decodeContext(headers)?.policies,
          path: req.path,
        });
        return { data: { version: 1 } };
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
  });

  afterAll(async () => {
    await listener?.stop();
    for (const s of served) s.unsubscribe();
    await transport?.close();
  });

  it("runs the write on the primary's engine as the resolved caller, with the primary's mount, and answers its index", async () => {
    const answer = await forwardToPrimary(link(), write('a'), self);
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
    const answer = await forwardToPrimary(link(), policy, self);
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
    const sealed = await forwardToPrimary(link(), seal, self).catch((e: unknown) => e);
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
    const local = await forwardToPrimary(link(), enableLocal, self).catch((e: unknown) => e);
    expect(local).toMatchObject({
      code: 'invalid_request',
      message: /local mount is enabled on the secondary/,
    });
    expect(received.length).toBe(calls);
  });

  it("brings the engine's refusal back as the same domain error", async () => {
    const error = await forwardToPrimary(link(), write('missing'), self).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'not_found', warnings: ['no such thing'] });
  });

  it('refuses a local or filtered mount, and a mount the primary does not have, without calling the engine', async () => {
    const calls = received.length;
    const local = await forwardToPrimary(link(), write('b', mountOf({ uuid: 'm-local' })), self).catch(
      (e: unknown) => e,
    );
    expect(local).toMatchObject({ code: 'invalid_request', message: /the mount is local/ });
    const unknown = await forwardToPrimary(link(), write('c', mountOf({ uuid: 'm-gone' })), self).catch(
      (e: unknown) => e,
    );
    expect(unknown).toMatchObject({ code: 'invalid_request', message: /no such mount on the primary/ });
    filtered.add('m-secret');
    try {
      const hidden = await forwardToPrimary(link(), write('d'), self).catch((e: unknown) => e);
      expect(hidden).toMatchObject({ code: 'invalid_request', message: /filtered out for this secondary/ });
    } finally {
      filtered.delete('m-secret');
    }
    expect(received.length).toBe(calls);
  });

  it('refuses a revoked secondary and tells the secondary when the primary cannot be reached (503)', async () => {
    const calls = received.length;
    state.current = { ...state.current, revoked: ['perf-1'] };
    try {
      const revoked = await forwardToPrimary(link(), write('e'), self).catch((e: unknown) => e);
      expect(revoked).toMatchObject({ code: 'service_unavailable' });
    } finally {
      state.current = { ...state.current, revoked: [] };
    }
    // a secondary that has seen a later epoch does not write through a superseded primary
    const stale = await forwardToPrimary(link(), write('f'), { ...self, epoch: 5 }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'service_unavailable', message: /superseded/ });
    const down = await forwardToPrimary(
      { ...link(), primaryClusterAddr: `127.0.0.1:${await freePort()}` },
      write('g'),
      self,
    ).catch((e: unknown) => e);
    expect(down).toMatchObject({ code: 'service_unavailable', message: PRIMARY_UNREACHABLE });
    expect(received.length).toBe(calls);
  });
});
