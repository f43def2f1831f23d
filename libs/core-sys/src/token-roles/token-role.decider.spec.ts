import { tokenContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import type { TokenState } from '../tokens/token.decider';
import { decideRoleToken, globMatch } from './role-token.decider';
import { applyRoleFields, type TokenRoleState } from './token-role.decider';

const role = (body: Record<string, unknown>): TokenRoleState =>
  applyRoleFields('r', undefined, parsedBody(tokenContracts.roleWrite, body));

const parent: TokenState = {
  accessor: 'parent',
  tokenHash: 'h',
  tokenRef: 'r',
  parentAccessor: null,
  policies: ['default', 'web'],
  meta: {},
  displayName: 'token',
  numUses: 0,
  renewable: true,
  creationTtl: 3600,
  renewTtl: 3600,
  backendMaxTtl: 0,
  explicitMaxTtl: 0,
  period: 0,
  createdAt: 0,
  expiresAt: 3_600_000,
  path: 'auth/token/create',
  entityId: 'e1',
  mountAccessor: 'm',
  exhaustedAt: null,
  lastRenewedAt: null,
};

const decide = (r: TokenRoleState, over: Record<string, unknown> = {}, sudo = false, requestedType = '') =>
  decideRoleToken({
    parent,
    sudo,
    role: r,
    params: {
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
    },
    requestedType,
    entityAlias: '',
    path: 'auth/token/create/r',
  });

describe('globMatch', () => {
  it.each([
    ['team-*', 'team-a', true],
    ['team-*', 'team-', true],
    ['team-*', 'ops', false],
    ['*-ro', 'db-ro', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['exact', 'exact', true],
    ['*', '', true],
  ])('%s ~ %s = %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });
});

describe('role tokens', () => {
  it('inherits the parent, not the entity, when the role is an orphan one', () => {
    expect(decide(role({ orphan: true })).spec).toMatchObject({ parentAccessor: null, entityId: '' });
    expect(decide(role({})).spec).toMatchObject({ parentAccessor: 'parent', entityId: 'e1' });
  });

  it("binds the token to the role's token_bound_cidrs, and to nothing without them", () => {
    expect(decide(role({ token_bound_cidrs: '10.0.0.0/8' })).spec.boundCidrs).toEqual(['10.0.0.0/8']);
    expect(decide(role({})).spec).not.toHaveProperty('boundCidrs');
  });

  it('without policy lists keeps the subset-of-the-caller rule', () => {
    expect(() => decide(role({}), { policies: ['admin'] })).toThrow(
      'child policies must be subset of parent',
    );
    expect(decide(role({}), { policies: ['web'] }).spec.policies).toEqual(['default', 'web']);
  });

  it('refuses the internal response-wrapping policy even when the role allows it', () => {
    const allowing = role({ allowed_policies: 'web,response-wrapping' });
    expect(() => decide(allowing, { policies: ['response-wrapping'] }, true)).toThrow(
      'cannot assign policy "response-wrapping"',
    );
  });

  it('caps period and explicit max TTL by the role, warning when both are set', () => {
    const r = role({ token_period: 600, token_explicit_max_ttl: 900 });
    expect(decide(r).spec).toMatchObject({ period: 600, explicitMaxTtl: 900 });
    const both = decide(r, { period: 1200, explicitMaxTtl: 300 }, true);
    expect(both.spec).toMatchObject({ period: 600, explicitMaxTtl: 300 });
    expect(both.warnings).toHaveLength(2);
  });

  it('a batch role hands out batch tokens that are never renewable', () => {
    const r = role({ token_type: 'batch', orphan: true, renewable: false });
    expect(decide(r).spec).toMatchObject({ batch: true, renewable: false, parentAccessor: null });
    expect(() => decide(r, { numUses: 1 })).toThrow('batch tokens cannot have "num_uses" set');
  });

  it('a default-batch role gives batch unless the request asks for service', () => {
    const r = role({ token_type: 'default-batch' });
    expect(decide(r).spec.batch).toBe(true);
    expect(decide(r, {}, false, 'service').spec.batch).toBeUndefined();
    expect(() => decide(r, {}, false, 'bulk')).toThrow("invalid 'token_type' value");
  });
});
