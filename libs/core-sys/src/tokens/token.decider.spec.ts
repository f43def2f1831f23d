import { DomainError } from '@coffer/contracts';
import {
  decideChildSpec,
  decideRenew,
  decideUse,
  evolve,
  isUsable,
  isUseLimited,
  issueToken,
  revocationOrder,
  tokenDisplayName,
  type ChildTokenCommand,
  type CreateTokenParams,
  type TokenSpec,
  type TokenState,
} from './token.decider';
import { mountTtls } from './token-ttl';
import { resolvedToken } from './token.view';

const NOW = Date.UTC(2024, 5, 1);
const HOUR = 3600;

function token(over: Partial<TokenState> = {}): TokenState {
  return {
    accessor: 'parent',
    tokenHash: 'h',
    tokenRef: 'r',
    parentAccessor: null,
    policies: ['default', 'web'],
    meta: {},
    displayName: 'token',
    numUses: 0,
    renewable: true,
    creationTtl: HOUR,
    renewTtl: HOUR,
    backendMaxTtl: 0,
    explicitMaxTtl: 0,
    period: 0,
    createdAt: NOW,
    expiresAt: NOW + HOUR * 1000,
    path: 'auth/token/create',
    entityId: 'ent-1',
    mountAccessor: 'auth_token_1',
    exhaustedAt: null,
    lastRenewedAt: null,
    ...over,
  };
}

const root = token({
  accessor: 'root',
  policies: ['root'],
  expiresAt: 0,
  creationTtl: 0,
  renewable: false,
  entityId: '',
});

function params(over: Partial<CreateTokenParams> = {}): CreateTokenParams {
  return {
    meta: {},
    noParent: false,
    noDefaultPolicy: false,
    renewable: true,
    batch: false,
    ttl: 0,
    explicitMaxTtl: 0,
    numUses: 0,
    period: 0,
    ...over,
  };
}

function child(over: Partial<ChildTokenCommand> & { p?: Partial<CreateTokenParams> } = {}): TokenSpec {
  const { p, ...rest } = over;
  return decideChildSpec({
    parent: token(),
    sudo: false,
    orphanRoute: false,
    path: 'auth/token/create',
    params: params(p),
    ...rest,
  });
}

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('decideChildSpec: policies', () => {
  it('inherits the parent policies when none are asked', () => {
    expect(child().policies).toEqual(['default', 'web']);
  });

  it('lets a non-root caller pick a subset, adding default because the parent has it', () => {
    expect(child({ p: { policies: ['web'] } }).policies).toEqual(['default', 'web']);
    expect(child({ p: { policies: ['web'], noDefaultPolicy: true } }).policies).toEqual(['web']);
  });

  it("refuses policies outside the caller's", () => {
    expect(failure(() => child({ p: { policies: ['admin'] } })).message).toBe(
      'child policies must be subset of parent',
    );
  });

  it('does not add default when the parent lacks it', () => {
    const spec = child({ parent: token({ policies: ['web'] }), p: { policies: ['web'] } });
    expect(spec.policies).toEqual(['web']);
  });

  it('lets root hand out any policy, with default unless no_default_policy', () => {
    expect(child({ parent: root, sudo: true, p: { policies: ['Admin', ' ops '] } }).policies).toEqual([
      'admin',
      'default',
      'ops',
    ]);
    expect(
      child({ parent: root, sudo: true, p: { policies: ['admin'], noDefaultPolicy: true } }).policies,
    ).toEqual(['admin']);
  });

  it('gives a root child of root only "root"', () => {
    expect(child({ parent: root, sudo: true }).policies).toEqual(['root']);
  });

  it('refuses root policy from a non-root parent even with sudo', () => {
    expect(failure(() => child({ sudo: true, p: { policies: ['root'] } })).message).toBe(
      'root tokens may not be created without parent token being root',
    );
  });

  it('refuses internal policies', () => {
    expect(
      failure(() => child({ parent: root, sudo: true, p: { policies: ['response-wrapping'] } })).message,
    ).toBe('cannot assign policy "response-wrapping"');
  });
});

describe('decideChildSpec: privileges and shape', () => {
  it('needs sudo for no_parent, period and a custom id', () => {
    expect(failure(() => child({ p: { noParent: true } })).message).toBe(
      'root or sudo privileges required to create orphan token',
    );
    expect(failure(() => child({ p: { period: 60 } })).message).toBe(
      'root or sudo privileges required to create periodic token',
    );
    expect(failure(() => child({ p: { id: 'abc' } })).message).toBe(
      'root or sudo privileges required to specify token id',
    );
  });

  it('validates custom ids', () => {
    expect(failure(() => child({ parent: root, sudo: true, p: { id: 'hvs.x' } })).message).toContain(
      "'hvs.' prefix",
    );
    expect(failure(() => child({ parent: root, sudo: true, p: { id: 'a.b' } })).message).toContain("'.'");
    expect(child({ parent: root, sudo: true, p: { id: 'my-token' } }).customId).toBe('my-token');
  });

  it('refuses children of use-limited tokens', () => {
    expect(failure(() => child({ parent: token({ numUses: 3 }) })).message).toBe(
      'restricted use token cannot generate child tokens',
    );
  });

  it('links children to the parent and its entity; orphans get neither', () => {
    const linked = child();
    expect(linked.parentAccessor).toBe('parent');
    expect(linked.entityId).toBe('ent-1');
    const orphan = child({ orphanRoute: true });
    expect(orphan.parentAccessor).toBeNull();
    expect(orphan.entityId).toBe('');
    expect(child({ sudo: true, p: { noParent: true } }).parentAccessor).toBeNull();
  });

  it('builds Vault display names', () => {
    expect(tokenDisplayName(undefined)).toBe('token');
    expect(tokenDisplayName('my app!')).toBe('token-my-app');
    expect(tokenDisplayName('ci_bot')).toBe('token-ci-bot');
  });
});

describe('issueToken', () => {
  const ctx = {
    nowMs: NOW,
    mount: mountTtls(),
    mountAccessor: 'auth_token_1',
    accessor: 'acc',
    tokenHash: 'hash',
    tokenRef: 'ref',
  };

  it('never expires a root token created without TTL, and does not call it renewable', () => {
    const { created } = issueToken(child({ parent: root, sudo: true }), ctx);
    expect(created.expiresAt).toBe(0);
    expect(created.creationTtl).toBe(0);
    expect(created.renewable).toBe(false);
  });

  it('gives other tokens the mount default, bounded by explicit_max_ttl', () => {
    expect(issueToken(child(), ctx).created.creationTtl).toBe(768 * HOUR);
    const { created, warnings } = issueToken(child({ p: { ttl: 2 * HOUR, explicitMaxTtl: HOUR } }), ctx);
    expect(created.creationTtl).toBe(HOUR);
    expect(created.expiresAt).toBe(NOW + HOUR * 1000);
    expect(warnings).toHaveLength(1);
  });

  it('refuses a non-expiring root token from an expiring root token', () => {
    const expiringRoot = token({ policies: ['root'], expiresAt: NOW + 1000 });
    const spec = decideChildSpec({
      parent: expiringRoot,
      sudo: true,
      orphanRoute: false,
      path: 'auth/token/create',
      params: params(),
    });
    expect(failure(() => issueToken(spec, ctx)).message).toBe(
      'expiring root tokens cannot create non-expiring root tokens',
    );
  });

  it('keeps the backend TTL as renewal base for logins', () => {
    const login: TokenSpec = { ...child(), allowNonExpiring: false, ttl: 0, backendMaxTtl: 2 * HOUR };
    const { created } = issueToken(login, ctx);
    expect(created.creationTtl).toBe(2 * HOUR);
    expect(created.renewTtl).toBe(0);
  });
});

describe('renewal', () => {
  const mount = mountTtls();

  it('renews to the base TTL or the increment, within the max', () => {
    const t = token({ explicitMaxTtl: 2 * HOUR });
    expect(decideRenew(t, 0, NOW + 1000, mount).renewed.ttl).toBe(HOUR);
    expect(decideRenew(t, 600, NOW + 1000, mount).renewed).toEqual({
      ttl: 600,
      expiresAt: NOW + 1000 + 600_000,
      renewedAt: NOW + 1000,
    });
    expect(decideRenew(t, 5 * HOUR, NOW + HOUR * 1000, mount).renewed.ttl).toBe(HOUR);
  });

  it('renews periodic tokens to their period', () => {
    expect(decideRenew(token({ period: 120 }), 5000, NOW + 1000, mount).renewed.ttl).toBe(120);
  });

  it('refuses non-renewable and non-expiring tokens', () => {
    expect(failure(() => decideRenew(token({ renewable: false }), 0, NOW, mount)).message).toBe(
      'lease is not renewable',
    );
    expect(failure(() => decideRenew(root, 0, NOW, mount)).message).toBe('lease does not expire');
  });
});

describe('num_uses', () => {
  it('counts down and marks the last use', () => {
    let t: TokenState | null = token({ numUses: 2 });
    const first = decideUse(t, NOW);
    expect(first).toEqual({ remaining: 1, exhaustedAt: null });
    t = evolve(t, { type: 'TokenUsed', data: first! });
    const second = decideUse(t!, NOW + 5);
    expect(second).toEqual({ remaining: 0, exhaustedAt: NOW + 5 });
    t = evolve(t, { type: 'TokenUsed', data: second! });
    expect(isUsable(t!, NOW + 6)).toBe(false);
    expect(failure(() => decideUse(t!, NOW + 6)).code).toBe('invalid_token');
  });

  it('records nothing for unlimited tokens', () => {
    expect(decideUse(token(), NOW)).toBeUndefined();
  });

  it('keeps a token use-limited, and uncacheable, through its last use', () => {
    let t: TokenState | null = token({ numUses: 1 });
    expect(isUseLimited(t)).toBe(true);
    expect(resolvedToken(t, { policies: [] }).cacheable).toBe(false);
    t = evolve(t, { type: 'TokenUsed', data: decideUse(t, NOW)! });
    // Remaining 0 after the last use: not "unlimited". Cached, the gateway would let it live on.
    expect(t).toMatchObject({ numUses: 0, exhaustedAt: NOW });
    expect(isUseLimited(t!)).toBe(true);
    expect(resolvedToken(t!, { policies: [] }).cacheable).toBe(false);
    expect(isUseLimited(token())).toBe(false);
    expect(resolvedToken(token(), { policies: [] }).cacheable).toBe(true);
  });

  it('refuses children to a used-up token', () => {
    const cmd: ChildTokenCommand = {
      parent: token({ numUses: 0, exhaustedAt: NOW }),
      sudo: true,
      orphanRoute: false,
      params: params(),
      path: 'auth/token/create',
    };
    expect(failure(() => decideChildSpec(cmd)).message).toBe(
      'restricted use token cannot generate child tokens',
    );
  });
});

describe('evolve and usability', () => {
  it('follows the lifecycle', () => {
    const created = token();
    let t = evolve(null, { type: 'TokenCreated', data: created });
    expect(t).toEqual({ ...created, exhaustedAt: null, lastRenewedAt: null });
    t = evolve(t, { type: 'TokenRenewed', data: { ttl: 10, expiresAt: NOW + 10_000, renewedAt: NOW } });
    expect(t?.expiresAt).toBe(NOW + 10_000);
    expect(t?.lastRenewedAt).toBe(NOW);
    t = evolve(t, { type: 'TokenOrphaned', data: { orphanedAt: NOW } });
    expect(t?.parentAccessor).toBeNull();
    expect(evolve(t, { type: 'TokenRevoked', data: { reason: 'revoked', revokedAt: NOW } })).toBeNull();
  });

  it('treats expired tokens as unusable; never-expiring ones as usable', () => {
    expect(isUsable(token(), NOW + HOUR * 1000)).toBe(false);
    expect(isUsable(token(), NOW + HOUR * 1000 - 1)).toBe(true);
    expect(isUsable(root, NOW + 1e12)).toBe(true);
  });
});

describe('revocationOrder', () => {
  it('revokes children before parents, the root last', () => {
    const tree = [
      { accessor: 'a', parentAccessor: null },
      { accessor: 'b', parentAccessor: 'a' },
      { accessor: 'c', parentAccessor: 'a' },
      { accessor: 'd', parentAccessor: 'b' },
      { accessor: 'e', parentAccessor: 'd' },
    ];
    const order = revocationOrder('a', tree);
    expect(order).toHaveLength(5);
    expect(order[order.length - 1]).toBe('a');
    for (const { accessor, parentAccessor } of tree) {
      if (parentAccessor) expect(order.indexOf(accessor)).toBeLessThan(order.indexOf(parentAccessor));
    }
  });

  it('handles a subtree root with a parent, and deep chains', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => ({
      accessor: `t${i}`,
      parentAccessor: i === 0 ? 'above' : `t${i - 1}`,
    }));
    const order = revocationOrder('t0', chain);
    expect(order[0]).toBe('t4999');
    expect(order[order.length - 1]).toBe('t0');
  });
});
