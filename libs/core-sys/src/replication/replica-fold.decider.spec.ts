import type { ReplicaFoldEvent } from '@coffer/contracts/replication';
import type { MountRecord } from '../mounts/mount.model';
import type { MountEvent } from '../mounts/mounts.events';
import { planStreamFolds } from '@coffer/event-store';
import { asInheritedSalt, foldable, mountTableFold } from './replica-fold.decider';

const config = {
  defaultLeaseTtl: 0,
  maxLeaseTtl: 0,
  forceNoCache: false,
  listingVisibility: '',
  tokenType: '',
  auditNonHmacRequestKeys: [],
  auditNonHmacResponseKeys: [],
};
const mount = (uuid: string, path: string, extra: Partial<MountRecord> = {}): MountRecord => ({
  uuid,
  path,
  table: path.startsWith('auth/') ? 'auth' : 'secret',
  type: 'kv',
  description: '',
  accessor: `kv_${uuid}`,
  options: {},
  config,
  local: false,
  sealWrap: false,
  externalEntropyAccess: false,
  ...extra,
});
const enabled = (m: MountRecord): MountEvent => ({ type: 'MountEnabled', data: m });

const row = (wal: number, stream: string, streamVersion: number, type = 'UserWritten'): ReplicaFoldEvent => ({
  wal,
  stream,
  streamVersion,
  type,
  schemaVersion: 1,
  data: { wal },
});

describe('mountTableFold', () => {
  it('disables the own mounts not served, then enables the served ones the own history lacks', () => {
    const ownSecret = mount('b-secret', 'secret/');
    const ownLocal = mount('b-local', 'mine/', { local: true });
    const wiped = mount('b-gone', 'b-only/');
    const theirs = mount('a-secret', 'secret/', { config: { ...config, maxLeaseTtl: 60 } });
    const userpass = mount('a-up', 'auth/userpass/', { type: 'userpass' });
    const events = mountTableFold(
      [enabled(ownSecret), enabled(ownLocal), enabled(wiped)],
      [ownLocal, theirs, { ...userpass, tainted: true }],
    );
    expect(events.map((e) => [e.type, e.data.uuid])).toEqual([
      ['MountDisabled', 'b-secret'],
      ['MountDisabled', 'b-gone'],
      ['MountEnabled', 'a-secret'],
      ['AuthMethodEnabled', 'a-up'],
      ['MountTainted', 'a-up'],
    ]);
    // the served record as it is (tuned config), without the taint flag (its own event)
    expect(events[2]?.data).toEqual(theirs);
    expect(events[3]?.data).not.toHaveProperty('tainted');
  });

  it('is empty once the own history gives the served table (a second fold appends nothing)', () => {
    const own = [enabled(mount('b-secret', 'secret/'))];
    const served = [mount('a-secret', 'secret/', { namespace: '' })];
    const folded = mountTableFold(own, served);
    expect(mountTableFold([...own, ...folded], served)).toEqual([]);
  });
});

describe('planStreamFolds', () => {
  it("appends each stream's events once, in first-appearance order, at this cluster's version", () => {
    const events = [row(1, 'u/a', 1), row(2, 'u/b', 1), row(3, 'u/a', 2), row(4, 'u/c', 1)];
    const plans = planStreamFolds(events, new Map([['u/c', 1]]), new Map([['u/c', 3]]));
    expect(plans.map((p) => [p.stream, p.expectedVersion, p.events.map((e) => e.wal), p.foldedTo])).toEqual([
      ['u/a', 0, [1, 3], 2],
      ['u/b', 0, [2], 1],
    ]);
  });

  it('continues a stream folded before and leaves a stream this cluster wrote itself alone', () => {
    const events = [row(5, 'u/a', 2), row(6, 'u/a', 3), row(7, 'token/own', 1)];
    const plans = planStreamFolds(
      events,
      new Map([['u/a', 2]]),
      new Map([
        ['u/a', 4],
        ['token/own', 1],
      ]),
    );
    expect(plans).toEqual([{ stream: 'u/a', expectedVersion: 4, events: [events[1]], foldedTo: 3 }]);
  });
});

describe('foldable', () => {
  const served = new Set(['m1']);
  it('folds what core-sys projected in the mode: tokens on DR only, auth data of served mounts', () => {
    expect(foldable({ type: 'PolicyWritten', stream: 'policy/acl/x' }, 'performance', served)).toBe(true);
    expect(foldable({ type: 'TokenCreated', stream: 'token/x' }, 'performance', served)).toBe(false);
    expect(foldable({ type: 'TokenCreated', stream: 'token/x' }, 'dr', served)).toBe(true);
    const user = (mountUuid: string) => ({
      type: 'UserpassUserWritten',
      stream: `userpass-user/${mountUuid}/a`,
    });
    expect(foldable(user('m1'), 'performance', served)).toBe(true);
    expect(foldable(user('m2'), 'performance', served)).toBe(false);
    expect(foldable(user('m2'), 'dr', served)).toBe(true);
    // the mount table goes as a whole, audit devices not at all; the token salt with the tokens
    expect(foldable({ type: 'MountEnabled', stream: 'mounts/table' }, 'dr', served)).toBe(false);
    expect(foldable({ type: 'AuditDeviceEnabled', stream: 'audit/file' }, 'dr', served)).toBe(false);
    expect(foldable({ type: 'TokenSaltCreated', stream: 'token-salt' }, 'dr', served)).toBe(true);
    expect(foldable({ type: 'TokenSaltCreated', stream: 'token-salt' }, 'performance', served)).toBe(false);
  });
});

describe('asInheritedSalt', () => {
  it("moves the former primary's own salt to a stream named by its fingerprint, once", () => {
    const salt = { ...row(3, 'token-salt', 1, 'TokenSaltCreated'), data: { salt: 'c2FsdA==' } };
    const moved = asInheritedSalt(salt);
    expect(moved.stream).toMatch(/^token-salt\/inherited\/[0-9a-f]{32}$/);
    expect(asInheritedSalt(salt)).toEqual(moved);
    // a salt it inherited itself keeps its stream
    expect(asInheritedSalt(moved)).toEqual(moved);
  });
});
