import {
  assertRenewable,
  calculateTtl,
  childKeys,
  decideIssue,
  decideRenew,
  decideRevocationFailure,
  evolve,
  irrevocableLimit,
  leaseIdFor,
  leaseRequestPath,
  prefixDirectory,
  SYSTEM_MAX_LEASE_TTL,
  type LeaseState,
} from './lease.decider';

const MOUNT = {
  path: 'dyn/',
  uuid: 'u',
  accessor: 'acc',
  type: 'leasetest',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 3600, max_lease_ttl: 7200 },
};
const T0 = 1_700_000_000_000;

function issued(secret: { ttl?: number; max_ttl?: number; renewable?: boolean } = {}): LeaseState {
  const data = decideIssue({
    leaseId: 'dyn/creds/x/abc',
    path: 'dyn/creds/x',
    mount: MOUNT,
    service: 'leasetest',
    tokenAccessor: 'tok',
    secret: { ttl: 600, max_ttl: 0, renewable: true, internal: {}, ...secret },
    now: T0,
  });
  const state = evolve(null, { type: 'LeaseIssued', data });
  if (!state) throw new Error('no state');
  return state;
}

describe('lease TTLs', () => {
  it('never issues a non-expiring lease: the system max applies without a mount max', () => {
    const { ttl } = calculateTtl({
      config: { default_lease_ttl: 0, max_lease_ttl: 0 },
      requested: 0,
      engineTtl: 10 ** 9,
      engineMaxTtl: 0,
      issuedAt: T0,
      now: T0,
    });
    expect(ttl).toBe(SYSTEM_MAX_LEASE_TTL);
  });

  it('issues with the engine TTL, the mount default for 0, capped by the lower max', () => {
    expect(issued().expiresAt).toBe(T0 + 600_000);
    expect(issued({ ttl: 0 }).expiresAt).toBe(T0 + 3_600_000);
    expect(issued({ ttl: 10_000 }).expiresAt).toBe(T0 + 7_200_000);
    expect(issued({ ttl: 600, max_ttl: 60 }).maxExpiresAt).toBe(T0 + 60_000);
  });

  it('renews by the increment, the lease TTL for 0 or negative, never past any max', () => {
    const s = issued();
    expect(decideRenew(s, 100, { ttl: 0, max_ttl: 0 }, T0).ttl).toBe(100);
    expect(decideRenew(s, 0, { ttl: 0, max_ttl: 0 }, T0).ttl).toBe(600);
    expect(decideRenew(s, -5, { ttl: 0, max_ttl: 0 }, T0).ttl).toBe(600);
    expect(decideRenew(s, 0, { ttl: 42, max_ttl: 0 }, T0).ttl).toBe(42);
    expect(decideRenew(s, 10 ** 12, { ttl: 0, max_ttl: 0 }, T0 + 1000).ttl).toBe(7199);
    expect(decideRenew(s, 5000, { ttl: 0, max_ttl: 1000 }, T0).ttl).toBe(1000);
    // the mount's max was tuned down since issue
    expect(decideRenew(s, 5000, { ttl: 0, max_ttl: 0 }, T0, 300).ttl).toBe(300);
  });

  it("warns with Vault's text when the increment is capped, and refuses past the max", () => {
    const s = issued();
    expect(decideRenew(s, 100, { ttl: 0, max_ttl: 0 }, T0).warnings).toEqual([]);
    expect(decideRenew(s, 10_000, { ttl: 0, max_ttl: 0 }, T0 + 1000).warnings).toEqual([
      'TTL of "2h46m40s" exceeded the effective max_ttl of "1h59m59s"; TTL value is capped accordingly',
    ]);
    expect(() => decideRenew(s, 10, { ttl: 0, max_ttl: 0 }, s.maxExpiresAt)).toThrow(
      'past the max TTL, cannot renew',
    );
  });

  it('refuses renewals as Vault: unknown, irrevocable, expired, not renewable', () => {
    expect(() => assertRenewable(undefined, T0)).toThrow('lease not found');
    expect(() => assertRenewable({ ...issued(), irrevocable: true }, T0)).toThrow('lease is irrevocable');
    expect(() => assertRenewable(issued(), T0 + 600_000)).toThrow('lease expired');
    expect(() => assertRenewable(issued({ renewable: false }), T0)).toThrow('lease is not renewable');
  });
});

describe('revocation failures', () => {
  it('backs off exponentially and gives up after the policy’s tries', () => {
    const policy = { maxAttempts: 3, baseBackoffMs: 1000, maxBackoffMs: 3000 };
    let s = issued();
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const data = decideRevocationFailure(s, 'no', T0, policy);
      delays.push(data.nextAttemptAt - T0);
      s = evolve(s, { type: 'LeaseRevocationFailed', data }) ?? s;
    }
    expect(delays).toEqual([1000, 2000, 3000]);
    expect(s).toMatchObject({ attempts: 3, irrevocable: true, lastError: 'no' });
  });

  it('a queued revocation only ever brings the expiry forward', () => {
    const s = issued();
    const later = evolve(s, {
      type: 'LeaseRevocationQueued',
      data: { queuedAt: T0, expiresAt: T0 + 10 ** 9 },
    });
    expect(later?.expiresAt).toBe(s.expiresAt);
    const now = evolve(s, { type: 'LeaseRevocationQueued', data: { queuedAt: T0, expiresAt: T0 } });
    expect(now?.expiresAt).toBe(T0);
  });
});

describe('prefixes', () => {
  it('reads a prefix as a directory and lists the next segment', () => {
    expect(prefixDirectory('aws/creds')).toBe('aws/creds/');
    expect(prefixDirectory('')).toBe('');
    expect(childKeys(['a/b/c', 'a/b/d/e', 'a/x', 'b/y'], 'a/b/')).toEqual(['c', 'd/']);
  });
});

describe('irrevocable listing limit', () => {
  it("reads limit as Vault's processLimit", () => {
    expect(irrevocableLimit('')).toBe(10_000);
    expect(irrevocableLimit('None')).toBe('none');
    expect(irrevocableLimit('5')).toBe(5);
    expect(() => irrevocableLimit('0')).toThrow("limit must be 'none' or a positive integer");
    expect(() => irrevocableLimit('-2')).toThrow("limit must be 'none' or a positive integer");
    expect(() => irrevocableLimit('x')).toThrow(
      'invalid \'limit\' provided: strconv.Atoi: parsing "x": invalid syntax',
    );
  });
});

describe('lease ids in namespaces', () => {
  it('takes the path relative to the namespace of the mount, whatever part of it the path carries', () => {
    const mount = { path: 'aws/', namespace: 'ns1/ns2/' };
    expect(leaseRequestPath('aws/creds/x', mount)).toBe('aws/creds/x');
    expect(leaseRequestPath('ns2/aws/creds/x', mount)).toBe('aws/creds/x');
    expect(leaseRequestPath('ns1/ns2/aws/creds/x/', mount)).toBe('aws/creds/x');
    expect(leaseRequestPath('aws/creds/x', { path: 'aws/', namespace: '' })).toBe('aws/creds/x');
  });

  it('suffixes the namespace id outside the root', () => {
    expect(leaseIdFor('aws/creds/x', 'R4nd0m', 'Ab1cD')).toBe('aws/creds/x/R4nd0m.Ab1cD');
    expect(leaseIdFor('aws/creds/x', 'R4nd0m', undefined)).toBe('aws/creds/x/R4nd0m');
  });
});
