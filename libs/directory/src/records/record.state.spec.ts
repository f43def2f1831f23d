import type { RecordEvent } from './record.events';
import { dueAt, evolve, pendingSince, type RecordState } from './record.state';

const fold = (kind: 'role' | 'account', events: RecordEvent[]): RecordState | undefined =>
  events.reduce<RecordState | undefined>((state, event) => evolve(kind, state, event), undefined);

const intended = (password: string, at = '2026-01-01T00:00:00.000Z'): RecordEvent => ({
  type: 'DirectoryPasswordRotationIntended',
  data: { password, at },
});
const rotated = (at = '2026-01-01T00:00:01.000Z'): RecordEvent => ({
  type: 'DirectoryPasswordRotated',
  data: { at },
});

describe('directory record state (write-ahead password changes)', () => {
  const role: RecordEvent = { type: 'DirectoryRoleWritten', data: { service_account_name: 'svc', ttl: 60 } };

  it('makes an intended password current only when confirmed; the previous becomes last', () => {
    const pending = fold('role', [role, intended('one')]);
    expect(pending).toMatchObject({ password: { current: null, pending: { password: 'one' } } });
    expect(pendingSince(pending!)).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    const first = fold('role', [role, intended('one'), rotated()]);
    expect(first).toMatchObject({ password: { current: 'one', last: null, pending: null } });
    expect(dueAt(first!)).toEqual(new Date('2026-01-01T00:01:01.000Z'));
    const second = fold('role', [role, intended('one'), rotated(), intended('two'), rotated()]);
    expect(second).toMatchObject({ password: { current: 'two', last: 'one' } });
  });

  it('keeps the password when a change is abandoned', () => {
    const state = fold('role', [
      role,
      intended('one'),
      rotated(),
      intended('two'),
      { type: 'DirectoryPasswordRotationAbandoned', data: {} },
    ]);
    expect(state).toMatchObject({ password: { current: 'one', pending: null } });
    expect(pendingSince(state!)).toBeNull();
  });

  it('a role rewrite keeps its creds; a delete forgets them', () => {
    const state = fold('role', [
      role,
      intended('one'),
      rotated(),
      { ...role, data: { service_account_name: 'svc', ttl: 5 } },
    ]);
    expect(state).toMatchObject({ ttl: 5, password: { current: 'one' } });
    expect(fold('role', [role, { type: 'DirectoryRecordDeleted', data: {} }])).toBeUndefined();
  });

  it('an account is checked in by its confirmed rotation, and due until it has a first password', () => {
    const enrolled: RecordEvent = { type: 'DirectoryAccountEnrolled', data: { set: 'team' } };
    expect(dueAt(fold('account', [enrolled])!)).toEqual(new Date(0));
    const out: RecordEvent = {
      type: 'DirectoryAccountCheckedOut',
      data: { checkout_id: 'c1', entity_id: 'e', token_ref: 't', accessor: 'a' },
    };
    const lent = fold('account', [enrolled, intended('one'), rotated(), out]);
    expect(lent).toMatchObject({ checkout: { checkout_id: 'c1' } });
    const stillLent = fold('account', [
      enrolled,
      intended('one'),
      rotated(),
      out,
      intended('two'),
      { type: 'DirectoryPasswordRotationAbandoned', data: {} },
    ]);
    expect(stillLent).toMatchObject({ checkout: { checkout_id: 'c1' }, password: { current: 'one' } });
    const back = fold('account', [enrolled, intended('one'), rotated(), out, intended('two'), rotated()]);
    expect(back).toMatchObject({ checkout: null, password: { current: 'two', last: 'one' } });
    expect(dueAt(back!)).toBeNull();
  });
});

describe('directory record state (check-outs and their leases)', () => {
  const enrolled: RecordEvent = { type: 'DirectoryAccountEnrolled', data: { set: 'team' } };
  const checkedOut = (at?: string): RecordEvent => ({
    type: 'DirectoryAccountCheckedOut',
    data: { checkout_id: 'c1', entity_id: '', token_ref: 't', accessor: '', ...(at ? { at } : {}) },
  });

  it('is due for the lease check 30 s after the check-out, and never again once leased', () => {
    const base = [enrolled, intended('one'), rotated()];
    const lent = fold('account', [...base, checkedOut('2026-01-01T00:00:10.000Z')]);
    expect(dueAt(lent!)).toEqual(new Date('2026-01-01T00:00:40.000Z'));
    const leased = fold('account', [
      ...base,
      checkedOut('2026-01-01T00:00:10.000Z'),
      { type: 'DirectoryCheckOutLeased', data: { checkout_id: 'c1' } },
    ]);
    expect(leased).toMatchObject({ checkout: { checkout_id: 'c1', leased: true } });
    expect(dueAt(leased!)).toBeNull();
    // another check-out's confirmation changes nothing; one recorded without a time is not checked
    const other = fold('account', [
      ...base,
      checkedOut('2026-01-01T00:00:10.000Z'),
      { type: 'DirectoryCheckOutLeased', data: { checkout_id: 'c0' } },
    ]);
    expect(dueAt(other!)).toEqual(new Date('2026-01-01T00:00:40.000Z'));
    expect(dueAt(fold('account', [...base, checkedOut()])!)).toBeNull();
  });
});
