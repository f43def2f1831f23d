import { startTarget, START_TIMEOUT_MS, TARGETS, type ApiClient, type Target } from './support';

jest.setTimeout(60_000);

/**
 * sys/leases/* over HTTP: statuses and Vault's texts, bad input changing nothing, sudo on the
 * prefix routes. (Lease-bearing engine answers are proven by the core-sys int-specs with a test
 * engine: no shipped engine issues leases yet.)
 */
describe.each(TARGETS)('%s: sys/leases', (kind) => {
  let target: Target;
  let root: ApiClient;
  let plain: ApiClient;

  beforeAll(async () => {
    target = await startTarget(kind, { label: 'leases' });
    root = target.root;
    const policy = 'path "sys/leases/*" { capabilities = ["create", "read", "update", "list"] }';
    expect((await root.put('sys/policies/acl/lease-ops', { policy })).status).toBe(204);
    const res = await root.post('auth/token/create', { policies: ['lease-ops'] });
    plain = target.anon.withToken(res.body.auth.client_token as string);
  }, START_TIMEOUT_MS);
  afterAll(() => target?.stop());

  const expectError = (
    res: { status: number; body: { errors?: string[] } },
    status: number,
    text: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.body.errors).toEqual([text]);
  };

  it('lookup: a missing, unknown or malformed lease id is 400', async () => {
    expectError(await root.put('sys/leases/lookup', {}), 400, 'lease_id must be specified');
    expectError(await root.put('sys/leases/lookup', { lease_id: 'kv/creds/nope/abc' }), 400, 'invalid lease');
    expectError(await root.put('sys/leases/lookup', { lease_id: '../..' }), 400, 'invalid lease');
    expectError(await root.put('sys/leases/lookup', { lease_id: 42 }), 400, 'invalid lease');
  });

  it('renew: bad increments and unknown leases are 400, on every path form', async () => {
    expectError(await root.put('sys/leases/renew', {}), 400, 'lease_id must be specified');
    expectError(
      await root.put('sys/leases/renew', { lease_id: 'x/y', increment: 'soon' }),
      400,
      'time: invalid duration "soon"',
    );
    expectError(
      await root.put('sys/leases/renew', { lease_id: 'x/y', increment: -5 }),
      400,
      'lease not found',
    );
    expectError(await root.put('sys/leases/renew/x/y', { increment: 10 }), 400, 'lease not found');
    expectError(await root.put('sys/renew/x/y', {}), 400, 'lease not found');
    expectError(
      await root.put('sys/leases/renew', { lease_id: 'auth/token/create/abc' }),
      400,
      'tokens cannot be renewed through this endpoint',
    );
  });

  it('revoke: unknown is 204 (nothing to revoke), queued unknown is 400', async () => {
    expect((await root.put('sys/leases/revoke', { lease_id: 'x/y' })).status).toBe(204);
    expect((await root.put('sys/leases/revoke/x/y', {})).status).toBe(204);
    expect((await root.put('sys/revoke/x/y', {})).status).toBe(204);
    expectError(
      await root.put('sys/leases/revoke', { lease_id: 'x/y', sync: false }),
      400,
      'lease not found',
    );
    expectError(await root.put('sys/leases/revoke', {}), 400, 'lease_id must be specified');
  });

  it('revoke-prefix, revoke-force and LIST lookup need sudo', async () => {
    expect((await root.put('sys/leases/revoke-prefix/x', {})).status).toBe(204);
    expect((await root.put('sys/leases/revoke-force/x', {})).status).toBe(204);
    expect((await root.put('sys/revoke-prefix/x', {})).status).toBe(204);
    expect((await plain.put('sys/leases/revoke-prefix/x', {})).status).toBe(403);
    expect((await plain.put('sys/leases/revoke-force/x', {})).status).toBe(403);
    expect((await plain.list('sys/leases/lookup/x')).status).toBe(403);
    expect((await root.list('sys/leases/lookup/x')).status).toBe(404);
  });

  it('tidy starts (202, warning); count and list of irrevocable leases', async () => {
    const tidy = await root.put('sys/leases/tidy', {});
    expect(tidy.status).toBe(202);
    expect(tidy.body.warnings).toEqual([expect.stringContaining('Tidy operation successfully started')]);
    const count = await root.get('sys/leases/count?type=irrevocable');
    expect(count.status).toBe(200);
    expect(count.body.data).toEqual({ lease_count: 0, counts: {} });
    const list = await root.get('sys/leases?type=irrevocable');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ lease_count: 0, leases: [] });
  });
});
