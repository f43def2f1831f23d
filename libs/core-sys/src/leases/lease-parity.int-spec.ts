import { coreMountTable, leaseContracts, sysContracts, type MountInfo } from '@coffer/contracts';
import { startCoreSysHarness, type DevCoreSysHarness } from '../test-support/dev-harness';
import { LeaseTestEngine, registerTestLease } from '../test-support/lease-test-engine';

jest.setTimeout(30_000);

let h: DevCoreSysHarness;
let engine: LeaseTestEngine;

beforeAll(async () => {
  h = await startCoreSysHarness('lease-parity');
  engine = new LeaseTestEngine(h.client);
  await h.client.flush();
});

afterAll(async () => {
  engine?.stop();
  await h?.close();
});

const sys = { mount: () => h.mount('sys/') };

async function mountAt(path: string): Promise<MountInfo | undefined> {
  const table = await h.client.request(coreMountTable, {});
  const m = table.mounts.find((e) => e.path === path);
  return (
    m && {
      path: m.path,
      uuid: m.uuid,
      accessor: m.accessor,
      type: m.type,
      namespace: '',
      options: {},
      config: { default_lease_ttl: 0, max_lease_ttl: 0 },
    }
  );
}

async function leaseOn(mount: MountInfo, path: string): Promise<string> {
  const caller = await h.callerFor(h.rootToken);
  const lease = await registerTestLease(h.client, caller, path, { ttl: 600, renewable: true }, mount);
  return lease.lease_id;
}

const leaseExists = async (leaseId: string): Promise<boolean> => {
  try {
    await h.call(leaseContracts.lookup, {
      mount: sys.mount(),
      path: 'leases/lookup',
      body: { lease_id: leaseId },
    });
    return true;
  } catch {
    return false;
  }
};

describe("unmounting revokes the mount's leases first (Vault's unmountInternal)", () => {
  it('sys/mounts: a failing revocation refuses the unmount with its error and keeps mount and lease', async () => {
    await h.call(sysContracts.mountEnable, {
      mount: sys.mount(),
      path: 'mounts/dynsecret',
      params: { path: 'dynsecret' },
      body: { type: 'kv' },
    });
    const mount = await mountAt('dynsecret/');
    if (!mount) throw new Error('mount missing');
    const leaseId = await leaseOn(mount, 'dynsecret/creds/one');
    const disable = { mount: sys.mount(), path: 'mounts/dynsecret', params: { path: 'dynsecret' } };

    engine.failRevoke = 'backend down';
    try {
      expect(await h.fail(sysContracts.mountDisable, disable)).toEqual({
        code: 'invalid_request',
        message: `failed to revoke "${leaseId}" (1 / 1): failed to revoke entry: resp: (*logical.Response)(nil) err: backend down`,
        warnings: undefined,
      });
    } finally {
      engine.failRevoke = undefined;
    }
    // the mount stays, tainted as Vault leaves it (the gateway refuses requests to it)
    const table = await h.client.request(coreMountTable, {});
    expect(table.mounts.find((e) => e.path === 'dynsecret/')).toMatchObject({ tainted: true });
    expect(await leaseExists(leaseId)).toBe(true);
    // enabling at the path is still refused while the tainted mount is there
    expect(
      await h.fail(sysContracts.mountEnable, {
        mount: sys.mount(),
        path: 'mounts/dynsecret',
        params: { path: 'dynsecret' },
        body: { type: 'kv' },
      }),
    ).toMatchObject({ message: 'path is already in use at dynsecret/' });

    await h.call(sysContracts.mountDisable, disable);
    expect(engine.revokedIds()).toContain(leaseId);
    expect(await mountAt('dynsecret/')).toBeUndefined();
    expect(await leaseExists(leaseId)).toBe(false);
  });

  it('sys/auth: the leases are revoked (engine called) before the method is gone', async () => {
    const mount = await h.enableAuth('dynauth', 'userpass');
    const leaseId = await leaseOn(mount, 'auth/dynauth/creds/two');
    await h.call(sysContracts.authDisable, {
      mount: sys.mount(),
      path: 'auth/dynauth',
      params: { path: 'dynauth' },
    });
    expect(engine.revokedIds()).toContain(leaseId);
    expect(await mountAt('auth/dynauth/')).toBeUndefined();
    expect(await leaseExists(leaseId)).toBe(false);
  });
});

describe('renewal warnings', () => {
  it("a capped increment answers Vault's warning with the capped TTL", async () => {
    const caller = await h.callerFor(h.rootToken);
    const lease = await registerTestLease(h.client, caller, 'dyn/creds/cap', { ttl: 60, renewable: true });
    const res = await h.call(leaseContracts.renew, {
      mount: sys.mount(),
      path: 'leases/renew',
      body: { lease_id: lease.lease_id, increment: 10_000 },
    });
    expect(res.lease).toMatchObject({ lease_duration: 7200 });
    expect(res.warnings).toEqual([
      'TTL of "2h46m40s" exceeded the effective max_ttl of "2h"; TTL value is capped accordingly',
    ]);
  });
});
