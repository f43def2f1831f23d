import type { MountEntry } from '@coffer/contracts';
import type { ForwardedWrite } from '@coffer/contracts/replication';
import { sysContracts, tokenContracts, userpassContracts } from '@coffer/contracts/core-sys';
import { pki } from '@coffer/contracts/pki';
import { REPLICATED_WRITE_ROUTES, forwardedResult, forwardRefusal, logSchemaOf } from './write-forwarding';
import { DomainError } from '@coffer/contracts';
import { forwardingHelloRefusal } from './forwarding-session';
import { FORWARDING_PROTOCOL } from './stream.wire';

const mount: MountEntry = {
  path: 'secret/',
  uuid: 'm-1',
  accessor: 'kv_1',
  type: 'kv',
  namespace: '',
  options: { version: '2' },
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
};

const write = (
  over: Partial<ForwardedWrite> = {},
  operation: ForwardedWrite['request']['operation'] = 'create',
) => ({
  subject: 'kv.v2.data.write',
  service: 'kv',
  context: {},
  ...over,
  request: {
    operation,
    mount,
    path: 'data/a',
    params: { path: 'a' },
    body: { data: { v: 1 } },
    query: {},
    headers: {},
  },
});

describe('write forwarding: what the primary re-checks', () => {
  it('runs a write to a replicated kv mount', () => {
    expect(forwardRefusal(write(), mount, undefined)).toBeUndefined();
    for (const op of ['update', 'patch', 'delete'] as const)
      expect(forwardRefusal(write({}, op), mount, undefined)).toBeUndefined();
    // every kv v1 and v2 write route (flagged `replicated`)
    for (const subject of ['kv.v1.write', 'kv.v1.delete', 'kv.v2.config.write', 'kv.v2.versions.destroy'])
      expect([subject, forwardRefusal(write({ subject }), mount, undefined)]).toEqual([subject, undefined]);
  });

  it('refuses reads, other services, replication and cubbyhole subjects', () => {
    expect(forwardRefusal(write({}, 'read'), mount, undefined)).toBe('only writes are forwarded');
    expect(forwardRefusal(write({}, 'list'), mount, undefined)).toBe('only writes are forwarded');
    expect(forwardRefusal(write({ service: 'pki', subject: 'pki.issue' }), mount, undefined)).toMatch(
      /not forwarded/,
    );
    expect(forwardRefusal(write({ subject: 'core.mounts.table' }), mount, undefined)).toMatch(
      /not forwarded/,
    );
    expect(forwardRefusal(write({ subject: 'kv.replication.apply' }), mount, undefined)).toMatch(/local/);
    expect(forwardRefusal(write({ subject: 'kv.cubbyhole.write' }), mount, undefined)).toMatch(/local/);
  });

  it('refuses an unknown, local, cubbyhole or filtered mount', () => {
    expect(forwardRefusal(write(), undefined, undefined)).toBe('no such mount on the primary');
    expect(forwardRefusal(write(), { ...mount, namespace: 'ns1/' }, undefined)).toBe(
      'no such mount on the primary',
    );
    expect(forwardRefusal(write(), { ...mount, local: true }, undefined)).toMatch(/local/);
    expect(forwardRefusal(write(), { ...mount, type: 'cubbyhole' }, undefined)).toMatch(/local/);
    const filter = { excludedMountUuids: new Set(['m-1']), mounts: ['secret/'], namespaces: [] };
    expect(forwardRefusal(write(), mount, filter)).toBe('the mount is filtered out for this secondary');
  });

  it('runs core-sys writes to replicated data (its `replicated` routes), refuses its local ones', () => {
    const sys: MountEntry = { ...mount, path: 'sys/', uuid: 'm-sys', type: 'system', options: {} };
    const core = (
      subject: string,
      body: Record<string, unknown> = {},
      params: Record<string, string> = {},
    ) => ({
      subject,
      service: 'core-sys',
      context: {},
      request: { operation: 'update' as const, mount: sys, path: 'x', params, body, query: {}, headers: {} },
    });
    for (const subject of [
      sysContracts.policyWrite.subject,
      sysContracts.mountEnable.subject,
      sysContracts.authDisable.subject,
      userpassContracts.userWrite.subject,
    ])
      expect([subject, forwardRefusal(core(subject), sys, undefined)]).toEqual([subject, undefined]);
    // tokens, seal, reads: the secondary's own
    for (const subject of [
      tokenContracts.create.subject,
      sysContracts.seal.subject,
      sysContracts.mountRead.subject,
    ])
      expect(forwardRefusal(core(subject), sys, undefined)).toBe('writes to core-sys are not forwarded');
    // a mount enabled as local, or one of the primary's local mounts addressed by path
    expect(forwardRefusal(core(sysContracts.mountEnable.subject, { local: true }), sys, undefined)).toMatch(
      /enabled on the secondary itself/,
    );
    const mine = { ...mount, path: 'mine/', uuid: 'm-mine', local: true };
    expect(
      forwardRefusal(core(sysContracts.mountTune.subject, {}, { path: 'mine' }), sys, undefined, [sys, mine]),
    ).toMatch(/the mount is local/);
    expect(
      forwardRefusal(core(sysContracts.mountTune.subject, {}, { path: 'secret' }), sys, undefined, [
        sys,
        mount,
      ]),
    ).toBeUndefined();
    // the mount addressed by uuid is re-checked as for kv
    expect(forwardRefusal(core(sysContracts.policyWrite.subject), undefined, undefined)).toBe(
      'no such mount on the primary',
    );
    expect(REPLICATED_WRITE_ROUTES.has(sysContracts.policyRead.subject)).toBe(false);
    expect(logSchemaOf('core-sys')).toBe('core_sys');
    expect(logSchemaOf('kv')).toBe('kv');
  });

  it("runs pki's internal unified revocation records (as pki only), on a replicated mount", () => {
    const pkiMount = { ...mount, type: 'pki', path: 'pki/' };
    for (const subject of [pki.unifiedRevocationRecord.subject, pki.crossRevocationRequest.subject]) {
      expect(forwardRefusal(write({ service: 'pki', subject }), pkiMount, undefined)).toBeUndefined();
      expect(forwardRefusal(write({ service: 'kv', subject }), pkiMount, undefined)).toMatch(/not forwarded/);
      expect(
        forwardRefusal(write({ service: 'pki', subject }), { ...pkiMount, local: true }, undefined),
      ).toMatch(/local/);
    }
    // the pki routes that stay on the secondary are still not forwarded
    expect(forwardRefusal(write({ service: 'pki', subject: pki.revoke.subject }), pkiMount, undefined)).toBe(
      'writes to pki are not forwarded',
    );
  });

  it('answers a domain error as its body and any other failure as an opaque internal error', () => {
    expect(forwardedResult(new DomainError('not_found', '', null, ['w']))).toEqual({
      error: { code: 'not_found', message: '', data: null, warnings: ['w'] },
    });
    expect(forwardedResult(new Error('db password=hunter2 rejected'))).toEqual({
      error: { code: 'internal', message: 'internal error' },
    });
    const ok = { answer: { data: null }, index: { source: 'kv', wal: 3 } };
    expect(forwardedResult(ok)).toEqual({ ok });
  });

  it('opens a forwarding connection for a performance secondary speaking this protocol only', () => {
    const hello = {
      t: 'hello' as const,
      mode: 'performance' as const,
      clusterId: 'set',
      secondaryId: 'perf',
      apiAddr: '',
      clusterAddr: '',
      positions: [],
      forwarding: FORWARDING_PROTOCOL,
    };
    expect(forwardingHelloRefusal(hello)).toBeUndefined();
    expect(forwardingHelloRefusal({ ...hello, mode: 'dr' })).toBe(
      'only performance secondaries forward writes',
    );
    // protocol 1: one write in the hello (no `forwarding`), one connection per write
    expect(forwardingHelloRefusal({ ...hello, forwarding: undefined, forward: write() })).toMatch(
      /protocol 2 and the secondary 1: upgrade the older cluster/,
    );
    expect(forwardingHelloRefusal({ ...hello, forwarding: 3 })).toMatch(/the secondary 3/);
  });
});
