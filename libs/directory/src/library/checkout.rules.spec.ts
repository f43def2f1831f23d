import type { AccountState, SetState } from '../records/record.state';
import { accountsToCheckIn, borrowedBy, checkOutTtl, isAvailable, setSettings } from './checkout.rules';

const set = (over: Partial<SetState> = {}): SetState => ({
  kind: 'set',
  service_account_names: ['a', 'b', 'c'],
  ttl: 3600,
  max_ttl: 7200,
  disable_check_in_enforcement: false,
  ...over,
});
const password = { current: 'pw', last: null, pending: null, last_rotation: '2026-01-01T00:00:00Z' };
const free: AccountState = { kind: 'account', set: 's', password, checkout: null };
const lentTo = (entity: string, token: string): AccountState => ({
  ...free,
  checkout: { checkout_id: `${entity}-${token}`, entity_id: entity, token_ref: token, accessor: 'acc' },
});
const alice = { entityId: 'alice', tokenRef: 't-alice' };
const bob = { entityId: 'bob', tokenRef: 't-bob' };

describe('directory library state table', () => {
  it('lends only accounts that are free, with a known password and no change under way', () => {
    expect(isAvailable(free)).toBe(true);
    expect(isAvailable(lentTo('alice', ''))).toBe(false);
    expect(isAvailable({ ...free, password: { ...password, pending: { password: 'x', at: '' } } })).toBe(
      false,
    );
    expect(isAvailable({ ...free, password: { ...password, current: null } })).toBe(false);
  });

  it('caps the check-out ttl at the set ttl (0 = unlimited)', () => {
    expect(checkOutTtl(set(), undefined)).toBe(3600);
    expect(checkOutTtl(set(), 60)).toBe(60);
    expect(checkOutTtl(set(), 99999)).toBe(3600);
    expect(checkOutTtl(set({ ttl: 0 }), 99999)).toBe(99999);
    expect(checkOutTtl(set({ ttl: 0 }), undefined)).toBe(0);
  });

  it('matches the borrower by entity or by token', () => {
    expect(borrowedBy(lentTo('alice', 't-x').checkout!, alice)).toBe(true);
    expect(borrowedBy(lentTo('', 't-alice').checkout!, alice)).toBe(true);
    expect(borrowedBy(lentTo('', '').checkout!, { entityId: '', tokenRef: '' })).toBe(false);
    expect(borrowedBy(lentTo('alice', 't-alice').checkout!, bob)).toBe(false);
  });

  it('checks in the caller’s only account when none is named', () => {
    const accounts = new Map([
      ['a', lentTo('alice', 't-alice')],
      ['b', lentTo('bob', 't-bob')],
      ['c', free],
    ]);
    expect(accountsToCheckIn(set(), accounts, [], alice, false)).toEqual(['a']);
    expect(accountsToCheckIn(set(), accounts, [], { entityId: '', tokenRef: '' }, false)).toEqual([]);
    expect(() => accountsToCheckIn(set(), accounts, [], alice, true)).toThrow(
      'when multiple service accounts are checked out, the "service_account_names" to check in must be provided',
    );
  });

  it('refuses named accounts lent to someone else unless forced or unenforced; skips available ones', () => {
    const accounts = new Map([
      ['a', lentTo('alice', 't-alice')],
      ['b', free],
      ['c', free],
    ]);
    expect(() => accountsToCheckIn(set(), accounts, ['a'], bob, false)).toThrow(
      `"a" can't be checked in because it wasn't checked out by the caller`,
    );
    expect(accountsToCheckIn(set(), accounts, ['a', 'b'], bob, true)).toEqual(['a']);
    expect(
      accountsToCheckIn(set({ disable_check_in_enforcement: true }), accounts, ['a'], bob, false),
    ).toEqual(['a']);
    expect(accountsToCheckIn(set(), accounts, ['b'], alice, false)).toEqual([]);
    expect(() => accountsToCheckIn(set(), accounts, ['zz'], alice, false)).toThrow(
      '"zz" is not managed by this set',
    );
  });

  it('validates sets with Vault’s texts and defaults', () => {
    expect(setSettings(undefined, { service_account_names: ['x'] }, 86400)).toMatchObject({
      ttl: 86400,
      max_ttl: 86400,
    });
    expect(() => setSettings(undefined, {}, 86400)).toThrow('"service_account_names" must be provided');
    expect(() =>
      setSettings(undefined, { service_account_names: ['x'], ttl: 10, max_ttl: 5 }, 86400),
    ).toThrow('max_ttl (5 seconds) may not be less than ttl (10 seconds)');
    expect(setSettings(set(), { ttl: 60 }, 86400)).toMatchObject({
      ttl: 60,
      max_ttl: 7200,
      service_account_names: ['a', 'b', 'c'],
    });
    expect(setSettings(undefined, { service_account_names: ['x'], ttl: 0, max_ttl: 0 }, 86400).ttl).toBe(0);
  });
});
