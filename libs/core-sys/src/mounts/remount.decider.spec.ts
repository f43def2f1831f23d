import { DomainError, sysRemountBody } from '@coffer/contracts';
import type { MountRecord } from './mount.model';
import { defaultMounts, evolveMounts } from './mounts.decider';
import type { MountEvent } from './mounts.events';
import {
  decideRemountFinish,
  decideRemountStart,
  planOf,
  remountFailed,
  splitNamespaceAndMount,
} from './remount.decider';

let n = 0;
const ids = { uuid: () => `uuid-${++n}`, suffix: () => `0000000${n}`.slice(-8) };
const apply = (table: MountRecord[], events: (MountEvent | undefined)[]) =>
  events.reduce<MountRecord[]>((t, e) => (e ? evolveMounts(t, e) : t), table);

function mount(path: string, type: string, namespace = ''): MountRecord {
  return {
    uuid: `uuid-${path}-${namespace}`,
    path,
    table: path.startsWith('auth/') ? 'auth' : 'secret',
    type,
    description: '',
    accessor: `${type}_${path.length}`,
    options: {},
    config: {
      defaultLeaseTtl: 0,
      maxLeaseTtl: 0,
      forceNoCache: false,
      listingVisibility: '',
      tokenType: '',
      auditNonHmacRequestKeys: [],
      auditNonHmacResponseKeys: [],
    },
    local: false,
    sealWrap: false,
    externalEntropyAccess: false,
    ...(namespace === '' ? {} : { namespace }),
  };
}

const table = (): MountRecord[] => [
  ...apply([], defaultMounts(ids)),
  mount('secret/', 'kv'),
  mount('pki/', 'pki'),
  mount('auth/userpass/', 'userpass'),
  mount('team/', 'kv', 'ns1/'),
];
const NAMESPACES = ['ns1/', 'ns1/ns2/', 'ns3/'];

function start(body: Record<string, unknown>, caller = '', t = table()) {
  return decideRemountStart(t, NAMESPACES, caller, sysRemountBody.parse(body), 'mig-1');
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError && e.code === 'invalid_request') return e.message;
    throw e;
  }
  throw new Error('expected an invalid request');
}

describe('splitNamespaceAndMount', () => {
  it('splits at the longest live namespace under the caller', () => {
    expect(splitNamespaceAndMount('', 'secret', NAMESPACES)).toEqual({ namespace: '', mountPath: 'secret/' });
    expect(splitNamespaceAndMount('', 'ns1/ns2/kv', NAMESPACES)).toEqual({
      namespace: 'ns1/ns2/',
      mountPath: 'kv/',
    });
    expect(splitNamespaceAndMount('ns1/', 'ns2/auth/approle', NAMESPACES)).toEqual({
      namespace: 'ns1/ns2/',
      mountPath: 'auth/approle/',
    });
    // a namespace outside the caller's is never reached
    expect(splitNamespaceAndMount('ns1/', 'ns3/kv', NAMESPACES)).toEqual({
      namespace: 'ns1/',
      mountPath: 'ns3/kv/',
    });
  });
});

describe('decideRemountStart (Vault handleRemount texts)', () => {
  it('needs both paths, without surrounding spaces', () => {
    expect(messageOf(() => start({ from: 'secret' }))).toBe(
      "both 'from' and 'to' path must be specified as a string",
    );
    expect(messageOf(() => start({ from: ' secret', to: 'x' }))).toBe(
      "'from' path cannot contain trailing whitespace",
    );
    expect(messageOf(() => start({ from: 'secret', to: 'x ' }))).toBe(
      "'to' path cannot contain trailing whitespace",
    );
  });

  it('refuses a destination that is not its cleaned form', () => {
    expect(messageOf(() => start({ from: 'secret', to: 'a//b' }))).toBe(
      "invalid destination mount: path 'a//b/' does not match cleaned path 'a/b/'",
    );
    expect(messageOf(() => start({ from: 'secret', to: 'a/../b' }))).toBe(
      "invalid destination mount: path 'a/../b/' does not match cleaned path 'b/'",
    );
  });

  it('keeps system mounts and auth/token in place', () => {
    expect(messageOf(() => start({ from: 'sys', to: 'system' }))).toBe('cannot remount "sys/"');
    expect(messageOf(() => start({ from: 'cubbyhole', to: 'c2' }))).toBe('cannot remount "cubbyhole/"');
    expect(messageOf(() => start({ from: 'secret', to: 'sys/x' }))).toBe(
      'cannot remount to destination sys/x/',
    );
    expect(messageOf(() => start({ from: 'secret', to: 'auth/kv' }))).toBe(
      'cannot remount to destination auth/kv/',
    );
    expect(messageOf(() => start({ from: 'auth/token', to: 'auth/t2' }))).toBe(
      'cannot remount "auth/token/"',
    );
    expect(messageOf(() => start({ from: 'auth/userpass', to: 'auth/token/up' }))).toBe(
      'cannot remount to destination "auth/token/up/"',
    );
  });

  it('moves auth methods only to auth/ paths', () => {
    expect(messageOf(() => start({ from: 'auth/userpass', to: 'userpass2' }))).toBe(
      'cannot remount auth mount to non-auth mount "userpass2/"',
    );
    const { plan } = start({ from: 'auth/userpass', to: 'auth/people' });
    expect(plan).toMatchObject({ kind: 'auth', target: { namespace: '', mountPath: 'auth/people/' } });
  });

  it('needs a mount at the source and a free destination', () => {
    expect(messageOf(() => start({ from: 'nothing', to: 'x' }))).toBe('no matching mount at "nothing/"');
    expect(messageOf(() => start({ from: 'secret', to: 'pki' }))).toBe('path already in use at "pki/"');
    expect(messageOf(() => start({ from: 'secret', to: 'pki/inner' }))).toBe('path already in use at "pki/"');
    expect(messageOf(() => start({ from: 'secret', to: 'ns1/team' }))).toBe(
      'path already in use at "ns1/team/"',
    );
  });

  it('starts a migration that taints the source', () => {
    const t = table();
    const { event, plan } = start({ from: 'secret', to: 'ns1/ns2/moved' }, '', t);
    expect(event).toEqual({
      type: 'MountMigrationStarted',
      data: {
        migrationId: 'mig-1',
        uuid: 'uuid-secret/-',
        source: { namespace: '', mountPath: 'secret/' },
        target: { namespace: 'ns1/ns2/', mountPath: 'moved/' },
      },
    });
    const after = apply(t, [event]);
    expect(after.find((m) => m.path === 'secret/')?.tainted).toBe(true);
    // a mount being moved is not moved twice
    expect(messageOf(() => start({ from: 'secret', to: 'other' }, '', after))).toBe(
      'no matching mount at "secret/"',
    );
    expect(plan.source).toEqual({ namespace: '', mountPath: 'secret/' });
  });

  it('resolves paths from the caller namespace', () => {
    const { event } = start({ from: 'team', to: 'ns2/team' }, 'ns1/');
    expect(event.data).toMatchObject({
      source: { namespace: 'ns1/', mountPath: 'team/' },
      target: { namespace: 'ns1/ns2/', mountPath: 'team/' },
    });
  });
});

describe('decideRemountFinish', () => {
  it('moves the mount, keeping its uuid (its data)', () => {
    const t = table();
    const { event, plan } = start({ from: 'secret', to: 'ns1/ns2/moved' }, '', t);
    const started = apply(t, [event]);
    const moved = decideRemountFinish(started, NAMESPACES, plan);
    expect(moved).toEqual({
      type: 'MountMoved',
      data: { migrationId: 'mig-1', uuid: 'uuid-secret/-', path: 'moved/', namespace: 'ns1/ns2/' },
    });
    const after = apply(started, [moved]);
    const entry = after.find((m) => m.uuid === 'uuid-secret/-');
    expect(entry).toMatchObject({ path: 'moved/', namespace: 'ns1/ns2/' });
    expect(entry?.tainted).toBeUndefined();
  });

  it('fails when the destination was taken or its namespace deleted meanwhile', () => {
    const t = table();
    const { event, plan } = start({ from: 'secret', to: 'ns1/ns2/moved' }, '', t);
    const taken = apply(t, [event]).concat(mount('moved/', 'kv', 'ns1/ns2/'));
    expect(decideRemountFinish(taken, NAMESPACES, plan)).toMatchObject({
      type: 'MountMigrationFailed',
      data: { reason: 'path in use at "ns1/ns2/moved/"' },
    });
    expect(decideRemountFinish(apply(t, [event]), ['ns1/'], plan)).toMatchObject({
      type: 'MountMigrationFailed',
      data: { reason: 'namespace "ns1/ns2/" no longer exists' },
    });
  });

  it('a move already finished (or abandoned) is not finished twice', () => {
    const t = table();
    const { event, plan } = start({ from: 'secret', to: 'moved' }, '', t);
    const started = apply(t, [event]);
    const moved = apply(started, [decideRemountFinish(started, NAMESPACES, plan)]);
    expect(decideRemountFinish(moved, NAMESPACES, plan)).toBeUndefined();
    if (event.type !== 'MountMigrationStarted') throw new Error('expected a start');
    expect(planOf(event.data)).toEqual(plan);
  });

  it('a failed move leaves the mount serving at its old path', () => {
    const t = table();
    const { event, plan } = start({ from: 'secret', to: 'moved' }, '', t);
    const after = apply(apply(t, [event]), [remountFailed(plan, 'engine down')]);
    const entry = after.find((m) => m.uuid === plan.uuid);
    expect(entry?.path).toBe('secret/');
    expect(entry?.tainted).toBeUndefined();
  });
});
