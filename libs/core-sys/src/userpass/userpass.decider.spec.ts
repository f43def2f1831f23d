import { DomainError, userpassContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import {
  applyTokenFields,
  authMountPath,
  cidrAllows,
  DEFAULT_TOKEN_SETTINGS,
  evolve,
  loginDisplayName,
  loginPolicies,
  normalizeUsername,
  userView,
  validateCidr,
} from './userpass.decider';
import { burnPasswordCheck, hashPassword, verifyPassword } from './userpass-password';
import type { UserTokenSettings } from './userpass.events';

/** A user write's token fields as the handler receives them. */
const apply = (current: UserTokenSettings, body: Record<string, unknown>) =>
  applyTokenFields(current, parsedBody(userpassContracts.userWrite, body));

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('usernames', () => {
  it('lower-cases valid names', () => {
    expect(normalizeUsername('Bob')).toBe('bob');
    expect(normalizeUsername('a')).toBe('a');
    expect(normalizeUsername('first.last-2_x')).toBe('first.last-2_x');
  });

  it.each(['', '.bob', 'bob.', '-bob', 'bob-', 'bo b', 'bob/x', 'bób'])(
    'rejects %j as an unsupported path',
    (name) => {
      const e = failure(() => normalizeUsername(name));
      expect(e.code).toBe('unsupported_path');
    },
  );
});

describe('applyTokenFields', () => {
  it('parses Vault token fields, deprecated aliases included', () => {
    const s = apply(DEFAULT_TOKEN_SETTINGS, {
      token_policies: 'a, b',
      token_ttl: '1h',
      max_ttl: 7200,
      token_num_uses: '2',
      token_no_default_policy: 'true',
      token_bound_cidrs: ['10.0.0.0/8', '127.0.0.1'],
      token_type: 'service',
    });
    expect(s).toEqual({
      tokenPolicies: ['a', 'b'],
      tokenTtl: 3600,
      tokenMaxTtl: 7200,
      tokenExplicitMaxTtl: 0,
      tokenPeriod: 0,
      tokenNumUses: 2,
      tokenNoDefaultPolicy: true,
      tokenType: 'service',
      tokenBoundCidrs: ['10.0.0.0/8', '127.0.0.1/32'],
    });
    expect(apply(DEFAULT_TOKEN_SETTINGS, { policies: ['x'] }).tokenPolicies).toEqual(['x']);
  });

  it('keeps what is not given', () => {
    const s = apply({ ...DEFAULT_TOKEN_SETTINGS, tokenTtl: 60, tokenPolicies: ['p'] }, { token_num_uses: 1 });
    expect(s.tokenTtl).toBe(60);
    expect(s.tokenPolicies).toEqual(['p']);
  });

  it('answers Vault texts for bad values', () => {
    expect(failure(() => apply(DEFAULT_TOKEN_SETTINGS, { token_num_uses: -1 })).message).toBe(
      "'token_num_uses' cannot be negative",
    );
    expect(
      failure(() => apply(DEFAULT_TOKEN_SETTINGS, { token_ttl: '2h', token_max_ttl: '1h' })).message,
    ).toBe("'token_ttl' cannot be greater than 'token_max_ttl'");
    expect(failure(() => apply(DEFAULT_TOKEN_SETTINGS, { token_type: 'odd' })).message).toBe(
      'invalid \'token_type\' value "odd"',
    );
    expect(
      failure(() => apply(DEFAULT_TOKEN_SETTINGS, { token_bound_cidrs: '10.0.0.0/33' })).message,
    ).toContain('when parsing bound cidrs');
  });
});

describe('login rules', () => {
  it('adds default unless told not to, and refuses root', () => {
    expect(loginPolicies({ ...DEFAULT_TOKEN_SETTINGS, tokenPolicies: ['web'] })).toEqual(['default', 'web']);
    expect(
      loginPolicies({ ...DEFAULT_TOKEN_SETTINGS, tokenPolicies: ['web'], tokenNoDefaultPolicy: true }),
    ).toEqual(['web']);
    expect(failure(() => loginPolicies({ ...DEFAULT_TOKEN_SETTINGS, tokenPolicies: ['root'] })).message).toBe(
      'auth methods cannot create root tokens',
    );
  });

  it('refuses the internal response-wrapping policy at login, with 400 as Vault', () => {
    const err = failure(() =>
      loginPolicies({ ...DEFAULT_TOKEN_SETTINGS, tokenPolicies: ['web', 'Response-Wrapping'] }),
    );
    expect(err.message).toBe('cannot assign policy "response-wrapping"');
    expect(err.code).toBe('invalid_request');
  });

  it('checks bound CIDRs', () => {
    expect(cidrAllows([], 'anything')).toBe(true);
    expect(cidrAllows(['10.0.0.0/8'], '10.1.2.3')).toBe(true);
    expect(cidrAllows(['10.0.0.0/8'], '192.168.0.1')).toBe(false);
    expect(cidrAllows([validateCidr('::1')], '::1')).toBe(true);
    expect(cidrAllows(['10.0.0.0/8'], '')).toBe(false);
    expect(cidrAllows(['192.168.1.7'], '192.168.1.7')).toBe(true);
    expect(cidrAllows(['192.168.1.7'], '192.168.1.8')).toBe(false);
  });

  it('names login tokens like Vault', () => {
    expect(authMountPath('auth/userpass/')).toBe('auth/userpass/');
    expect(authMountPath('userpass')).toBe('auth/userpass/');
    expect(loginDisplayName('auth/userpass/', 'bob')).toBe('userpass-bob');
    expect(loginDisplayName('auth/corp/users/', 'bob')).toBe('corp-users-bob');
  });
});

describe('user events and view', () => {
  it('folds writes, password and policy changes, deletion', () => {
    let s = evolve(null, {
      type: 'UserpassUserWritten',
      data: {
        mountUuid: 'm',
        username: 'bob',
        passwordHash: 'h1',
        settings: DEFAULT_TOKEN_SETTINGS,
        writtenAt: 1,
      },
    });
    s = evolve(s, { type: 'UserpassPasswordSet', data: { passwordHash: 'h2', setAt: 2 } });
    s = evolve(s, { type: 'UserpassPoliciesSet', data: { tokenPolicies: ['p'], setAt: 3 } });
    expect(s).toEqual({
      mountUuid: 'm',
      username: 'bob',
      passwordHash: 'h2',
      settings: { ...DEFAULT_TOKEN_SETTINGS, tokenPolicies: ['p'] },
    });
    expect(evolve(s, { type: 'UserpassUserDeleted', data: { deletedAt: 4 } })).toBeNull();
  });

  it('shows the token fields, never the password', () => {
    const view = userView(DEFAULT_TOKEN_SETTINGS);
    expect(Object.keys(view).sort()).toEqual([
      'token_bound_cidrs',
      'token_explicit_max_ttl',
      'token_max_ttl',
      'token_no_default_policy',
      'token_num_uses',
      'token_period',
      'token_policies',
      'token_ttl',
      'token_type',
    ]);
  });
});

describe('password hashes', () => {
  it('verifies the right password only, with a fresh salt per hash', async () => {
    const h1 = await hashPassword('s3cret');
    const h2 = await hashPassword('s3cret');
    expect(h1).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain('s3cret');
    expect(await verifyPassword('s3cret', h1)).toBe(true);
    expect(await verifyPassword('S3cret', h1)).toBe(false);
    expect(await verifyPassword('s3cret', 'garbage')).toBe(false);
    expect(await burnPasswordCheck('x')).toBe(false);
  });
});
