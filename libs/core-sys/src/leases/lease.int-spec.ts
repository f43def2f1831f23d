import { leaseContracts, type Contract } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let engine: LeaseTestEngine;

beforeAll(async () => {
  h = await startCoreSysHarness('leases');
  engine = new LeaseTestEngine(h.client);
  await h.client.flush();
});

afterAll(async () => {
  engine?.stop();
  await h?.close();
});

const issue = async (
  path = 'dyn/creds/web',
  secret: Record<string, unknown> = { ttl: 600, renewable: true, internal: { user: 'u1' } },
) => registerTestLease(h.client, await h.callerFor(h.rootToken), path, secret);

const sys = (
  contract: Contract,
  path: string,
  body: Record<string, unknown> = {},
  extra = {},
): Promise<any> => h.call(contract, { mount: h.mount('sys/'), path, body, ...extra });
const sysFails = (contract: Contract, path: string, body: Record<string, unknown> = {}, extra = {}) =>
  h.fail(contract, { mount: h.mount('sys/'), path, body, ...extra });
const lookup = (lease_id: unknown) => sys(leaseContracts.lookup, 'leases/lookup', { lease_id });
const advance = (seconds: number) => {
  h.clock.now = new Date(h.clock.now.getTime() + seconds * 1000);
};

describe('registration and lookup', () => {
  it('registers a lease under the request path and looks it up as Vault does', async () => {
    const lease = await issue();
    expect(lease.lease_id).toMatch(/^dyn\/creds\/web\/[0-9A-Za-z]{24}$/);
    expect(lease).toMatchObject({ lease_duration: 600, renewable: true });
    const res = await lookup(lease.lease_id);
    expect(res.data).toEqual({
      id: lease.lease_id,
      issue_time: h.clock.now.toISOString(),
      expire_time: new Date(h.clock.now.getTime() + 600_000).toISOString(),
      last_renewal: null,
      renewable: true,
      ttl: 600,
    });
  });

  it('takes the mount default for ttl 0 and never lets a lease outlive the mount max', async () => {
    expect((await issue('dyn/creds/a', { ttl: 0 })).lease_duration).toBe(3600);
    expect((await issue('dyn/creds/b', { ttl: 99_999_999 })).lease_duration).toBe(7200);
    expect((await issue('dyn/creds/c', { ttl: 5000, max_ttl: 100 })).lease_duration).toBe(100);
  });

  it('lists the ids under a prefix, sub-prefixes ending in /', async () => {
    const a = await issue('dyn/list/x');
    await issue('dyn/list/deep/y');
    const res = await sys(
      leaseContracts.lookupList,
      'leases/lookup/dyn/list',
      {},
      {
        operation: 'list',
        params: { prefix: 'dyn/list' },
      },
    );
    expect(res.data?.keys).toEqual(['deep/', 'x/']);
    const one = await sys(
      leaseContracts.lookupList,
      'leases/lookup/dyn/list/x/',
      {},
      {
        operation: 'list',
        params: { prefix: 'dyn/list/x/' },
      },
    );
    expect(one.data?.keys).toEqual([a.lease_id.split('/').pop()]);
  });

  it('answers bad lease ids as Vault and changes nothing', async () => {
    expect(await sysFails(leaseContracts.lookup, 'leases/lookup', {})).toMatchObject({
      code: 'invalid_request',
      message: 'lease_id must be specified',
    });
    for (const id of ['dyn/creds/web/nope', 'no-slash', '../../etc', ' ']) {
      expect(await sysFails(leaseContracts.lookup, 'leases/lookup', { lease_id: id })).toMatchObject({
        code: 'invalid_request',
        message: 'invalid lease',
      });
    }
  });
});

describe('renew', () => {
  const renew = (body: Record<string, unknown>, params: Record<string, string> = {}) =>
    sys(leaseContracts.renew, 'leases/renew', body, { params });
  const renewFails = (body: Record<string, unknown>) => sysFails(leaseContracts.renew, 'leases/renew', body);

  it('reaches the engine with the internal data and extends by the increment', async () => {
    const lease = await issue();
    advance(60);
    const res = await renew({ lease_id: lease.lease_id, increment: '30m' });
    expect(res).toMatchObject({ lease: { lease_id: lease.lease_id, renewable: true, lease_duration: 1800 } });
    const call = engine.renewed.at(-1);
    expect(call).toMatchObject({ lease_id: lease.lease_id, internal: { user: 'u1' }, increment: 1800 });
    const looked = await lookup(lease.lease_id);
    expect(looked.data).toMatchObject({ ttl: 1800, last_renewal: h.clock.now.toISOString() });
  });

  it('takes the lease id from the URL too', async () => {
    const lease = await issue();
    const res = await renew({ increment: 10 }, { lease_id: lease.lease_id });
    expect(res).toMatchObject({ lease: { lease_duration: 10 } });
  });

  it('treats 0 and negative increments as the lease TTL, caps huge ones at the max', async () => {
    const lease = await issue();
    expect(await renew({ lease_id: lease.lease_id, increment: 0 })).toMatchObject({
      lease: { lease_duration: 600 },
    });
    expect(await renew({ lease_id: lease.lease_id, increment: -50 })).toMatchObject({
      lease: { lease_duration: 600 },
    });
    advance(100);
    expect(await renew({ lease_id: lease.lease_id, increment: 10_000_000 })).toMatchObject({
      lease: { lease_duration: 7100 },
    });
  });

  it('refuses strings, unknown, expired and non-renewable leases with nothing changed', async () => {
    const lease = await issue();
    const before = (await lookup(lease.lease_id)).data;
    expect(await renewFails({ lease_id: lease.lease_id, increment: 'soon' })).toMatchObject({
      code: 'invalid_request',
      message: 'time: invalid duration "soon"',
    });
    expect(await renewFails({})).toMatchObject({ message: 'lease_id must be specified' });
    expect(await renewFails({ lease_id: 'dyn/creds/web/unknown' })).toMatchObject({
      message: 'lease not found',
    });
    expect(await renewFails({ lease_id: 'auth/token/create/abc' })).toMatchObject({
      message: 'tokens cannot be renewed through this endpoint',
    });
    expect((await lookup(lease.lease_id)).data).toEqual(before);
    const fixed = await issue('dyn/creds/fixed', { ttl: 60, renewable: false });
    expect(await renewFails({ lease_id: fixed.lease_id })).toMatchObject({
      message: 'lease is not renewable',
    });
    const short = await issue('dyn/creds/short', { ttl: 5, renewable: true });
    advance(10);
    expect(await renewFails({ lease_id: short.lease_id })).toMatchObject({ message: 'lease expired' });
  });
});

describe('revoke', () => {
  const revoke = (body: Record<string, unknown>, params: Record<string, string> = {}) =>
    sys(leaseContracts.revoke, 'leases/revoke', body, { params });

  it('revokes through the engine (sync), and the lease is gone', async () => {
    const lease = await issue('dyn/creds/rev', { ttl: 600, internal: { user: 'gone' } });
    expect(await revoke({ lease_id: lease.lease_id })).toMatchObject({ data: null });
    expect(engine.revoked.at(-1)).toMatchObject({ lease_id: lease.lease_id, internal: { user: 'gone' } });
    expect(
      await sysFails(leaseContracts.lookup, 'leases/lookup', { lease_id: lease.lease_id }),
    ).toMatchObject({
      message: 'invalid lease',
    });
    // an unknown lease: nothing to revoke (Vault answers 204)
    await revoke({ lease_id: lease.lease_id });
    expect(await sysFails(leaseContracts.revoke, 'leases/revoke', {})).toMatchObject({
      message: 'lease_id must be specified',
    });
  });

  it('sync=false queues (202), and refuses an unknown lease', async () => {
    const lease = await issue();
    expect(await revoke({ lease_id: lease.lease_id, sync: false })).toMatchObject({ status: 202 });
    expect((await lookup(lease.lease_id)).data).toMatchObject({ ttl: 0 });
    expect(
      await sysFails(leaseContracts.revoke, 'leases/revoke', { lease_id: 'x/y', sync: 'false' }),
    ).toMatchObject({ message: 'lease not found' });
  });

  it('a failing engine: 400, the lease stays, retries are counted', async () => {
    const lease = await issue('dyn/creds/stuck');
    engine.failRevoke = 'backend says no';
    try {
      expect(
        await sysFails(leaseContracts.revoke, 'leases/revoke', { lease_id: lease.lease_id }),
      ).toMatchObject({
        code: 'invalid_request',
        message: 'failed to revoke entry: resp: (*logical.Response)(nil) err: backend says no',
      });
      expect((await lookup(lease.lease_id)).data).toMatchObject({ id: lease.lease_id });
    } finally {
      engine.failRevoke = undefined;
    }
  });

  it('revoke-prefix revokes every lease under the prefix only; revoke-force ignores the engine', async () => {
    const a = await issue('dyn/pfx/one');
    const b = await issue('dyn/pfx/two');
    const other = await issue('dyn/pfxother/three');
    await sys(
      leaseContracts.revokePrefix,
      'leases/revoke-prefix/dyn/pfx',
      {},
      { params: { prefix: 'dyn/pfx' } },
    );
    expect(engine.revokedIds()).toEqual(expect.arrayContaining([a.lease_id, b.lease_id]));
    expect((await lookup(other.lease_id)).data).toMatchObject({ id: other.lease_id });

    engine.failRevoke = 'down';
    try {
      await sys(
        leaseContracts.revokeForce,
        'leases/revoke-force/dyn/pfxother',
        {},
        {
          params: { prefix: 'dyn/pfxother' },
        },
      );
    } finally {
      engine.failRevoke = undefined;
    }
    expect(
      await sysFails(leaseContracts.lookup, 'leases/lookup', { lease_id: other.lease_id }),
    ).toMatchObject({
      message: 'invalid lease',
    });
  });
});

describe('tidy and count', () => {
  it('tidy answers 202 with Vault warning', async () => {
    expect(await sys(leaseContracts.tidy, 'leases/tidy')).toMatchObject({
      status: 202,
      warnings: [expect.stringContaining('Tidy operation successfully started')],
    });
  });

  it('count and list answer nothing without type=irrevocable', async () => {
    const res = await h.call(leaseContracts.count, {
      mount: h.mount('sys/'),
      path: 'leases/count',
      operation: 'read',
      query: { type: 'irrevocable' },
    });
    expect(res.data).toEqual({ lease_count: expect.any(Number), counts: expect.any(Object) });
    const none = await h.call(leaseContracts.count, {
      mount: h.mount('sys/'),
      path: 'leases/count',
      operation: 'read',
    });
    expect(none.data).toBeNull();
  });
});
