import { DomainError, sysContracts } from '@coffer/contracts';
import { parsedBody } from '../test-support/contract-body';
import { TEST_MOUNT_CATALOGUE } from '../test-support/test-mount-catalogue';
import type { MountIds, MountRecord } from './mount.model';
import {
  authRoutingPath,
  decideDisableAuth,
  decideDisableSecret,
  decideEnableAuth,
  decideEnableSecret,
  decideTune,
  defaultMounts,
  enableInputOf,
  evolveMounts,
  matchingMount,
  sanitizeMountPath,
  tuneInputOf,
} from './mounts.decider';
import type { MountEvent } from './mounts.events';

function ids(): MountIds {
  let n = 0;
  return { uuid: () => `uuid-${++n}`, suffix: () => `0000000${n}`.slice(-8) };
}

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

const tune = (body: Record<string, unknown>, auth: boolean) =>
  tuneInputOf(parsedBody(sysContracts.mountTune, body), auth);
const apply = (table: MountRecord[], events: (MountEvent | undefined)[]) =>
  events.reduce<MountRecord[]>((t, e) => (e ? evolveMounts(t, e) : t), table);
const base = (): MountRecord[] => apply([], defaultMounts(ids()));
const enable = (table: MountRecord[], path: string, body: Record<string, unknown>) =>
  decideEnableSecret(
    table,
    path,
    enableInputOf(parsedBody(sysContracts.mountEnable, body), false),
    ids(),
    TEST_MOUNT_CATALOGUE,
  );

describe('mount paths', () => {
  it('normalises to no leading slash and one trailing slash', () => {
    expect(sanitizeMountPath('/secret')).toBe('secret/');
    expect(sanitizeMountPath('a/b/')).toBe('a/b/');
    expect(authRoutingPath('userpass')).toBe('auth/userpass/');
    expect(authRoutingPath('auth/userpass/')).toBe('auth/userpass/');
  });

  it('finds the longest matching mount', () => {
    const table = apply(base(), [enable(base(), 'team', { type: 'kv' })]);
    expect(matchingMount(table, 'team/data/x')?.path).toBe('team/');
    expect(matchingMount(table, 'auth/token/create')?.type).toBe('token');
    expect(matchingMount(table, 'nothing/here')).toBeUndefined();
  });
});

describe('defaultMounts', () => {
  it('creates sys/, cubbyhole/ (local), identity/ and auth/token/', () => {
    const table = base();
    expect(table.map((m) => `${m.path}:${m.type}`).sort()).toEqual([
      'auth/token/:token',
      'cubbyhole/:cubbyhole',
      'identity/:identity',
      'sys/:system',
    ]);
    expect(table.find((m) => m.path === 'cubbyhole/')?.local).toBe(true);
    expect(table.find((m) => m.path === 'auth/token/')?.accessor).toMatch(/^auth_token_/);
  });
});

describe('decideEnableSecret', () => {
  it('enables kv at version 1 by default, with an accessor and uuid', () => {
    const event = enable(base(), 'secret', { type: 'kv', description: 'd' });
    expect(event).toMatchObject({
      type: 'MountEnabled',
      data: { path: 'secret/', type: 'kv', table: 'secret', description: 'd', options: { version: '1' } },
    });
    expect(event.data).toHaveProperty('accessor', 'kv_00000001');
  });

  it('maps the kv-v2 alias and keeps options.version', () => {
    expect(enable(base(), 'a', { type: 'kv-v2' }).data).toMatchObject({
      type: 'kv',
      options: { version: '2' },
    });
    expect(enable(base(), 'b', { type: 'kv', options: { version: 2 } }).data).toMatchObject({
      options: { version: '2' },
    });
  });

  it('parses TTLs given as durations', () => {
    const event = enable(base(), 'c', {
      type: 'kv',
      config: { default_lease_ttl: '1h', max_lease_ttl: '2h' },
    });
    expect(event.data).toMatchObject({ config: { defaultLeaseTtl: 3600, maxLeaseTtl: 7200 } });
  });

  it.each([
    [{}, 'backend type must be specified as a string'],
    [{ type: 'nope' }, 'plugin not found in the catalog: nope'],
    [{ type: 'userpass' }, 'plugin not found in the catalog: userpass'],
    [{ type: 'cubbyhole' }, 'mount type of "cubbyhole" is not mountable'],
    [{ type: 'pki', options: { version: '2' } }, 'secrets engine "pki" does not allow setting a version'],
    [{ type: 'kv', options: { version: '3' } }, 'invalid version specified'],
    [
      { type: 'kv', config: { default_lease_ttl: 'abc' } },
      'unable to parse default TTL of abc: time: invalid duration "abc"',
    ],
    [
      { type: 'kv', config: { default_lease_ttl: '2h', max_lease_ttl: '1h' } },
      'given default lease TTL greater than given max lease TTL',
    ],
  ])('refuses %j', (body, message) => {
    expect(errorOf(() => enable(base(), 'x', body)).message).toBe(message);
  });

  it.each(['sys', 'sys/foo', 'auth/foo', 'identity', 'cubbyhole', 'audit/x'])(
    'refuses the protected path %s',
    (path) => {
      const e = errorOf(() => enable(base(), path, { type: 'kv' }));
      expect(e.code).toBe('invalid_request');
      expect(e.message).toBe(`cannot mount "${sanitizeMountPath(path)}"`);
    },
  );

  it('refuses an existing path and overlapping prefixes in both directions', () => {
    const table = apply(base(), [enable(base(), 'secret', { type: 'kv' })]);
    expect(errorOf(() => enable(table, 'secret/', { type: 'kv' })).message).toBe(
      'path is already in use at secret/',
    );
    expect(errorOf(() => enable(table, 'secret/team', { type: 'kv' })).message).toBe(
      'path is already in use at secret/',
    );
    const nested = apply(base(), [enable(base(), 'a/b', { type: 'kv' })]);
    expect(errorOf(() => enable(nested, 'a', { type: 'kv' })).message).toBe('path is already in use at a/b/');
    expect(enable(table, 'secret2', { type: 'kv' }).data).toMatchObject({ path: 'secret2/' });
  });

  it('runs one version of an external plugin: another version than the mounted one is refused', () => {
    const catalogue = new Map([
      ...TEST_MOUNT_CATALOGUE,
      ['totp', { type: 'totp', kind: 'secret', service: 'plugin-totp' } as const],
    ]);
    const plugin = (table: MountRecord[], path: string, version: string) =>
      decideEnableSecret(
        table,
        path,
        enableInputOf(
          parsedBody(sysContracts.mountEnable, { type: 'totp', options: { plugin_version: version } }),
          false,
        ),
        ids(),
        catalogue,
      );
    const table = apply(base(), [plugin(base(), 'totp', 'v1.0.0')]);
    expect(plugin(table, 'totp2', 'v1.0.0').data).toMatchObject({ path: 'totp2/' });
    expect(errorOf(() => plugin(table, 'totp3', 'v2.0.0')).message).toBe(
      'plugin "totp" is mounted at "totp/" with version "v1.0.0"; every mount of a plugin runs the same version',
    );
  });
});

describe('decideEnableAuth', () => {
  const enableAuth = (table: MountRecord[], path: string, body: Record<string, unknown>) =>
    decideEnableAuth(
      table,
      path,
      enableInputOf(parsedBody(sysContracts.mountEnable, body), true),
      ids(),
      TEST_MOUNT_CATALOGUE,
    );

  it('enables userpass under auth/ with a default token type', () => {
    const event = enableAuth(base(), 'userpass', { type: 'userpass' });
    expect(event).toMatchObject({
      type: 'AuthMethodEnabled',
      data: { path: 'auth/userpass/', table: 'auth', config: { tokenType: 'default-service' } },
    });
    expect(event.data).toHaveProperty('accessor', 'auth_userpass_00000001');
  });

  it('refuses token, unknown types and used paths', () => {
    expect(errorOf(() => enableAuth(base(), 'tok', { type: 'token' })).message).toBe(
      'token credential backend cannot be instantiated',
    );
    expect(errorOf(() => enableAuth(base(), 'x', { type: 'kv' })).message).toBe(
      'plugin not found in the catalog: kv',
    );
    expect(errorOf(() => enableAuth(base(), 'token', { type: 'userpass' })).message).toBe(
      'path is already in use at token/',
    );
  });
});

describe('disable', () => {
  it('disables an existing mount and ignores unknown paths', () => {
    const table = apply(base(), [enable(base(), 'secret', { type: 'kv' })]);
    expect(decideDisableSecret(table, 'secret')).toMatchObject({
      type: 'MountDisabled',
      data: { path: 'secret/', type: 'kv' },
    });
    expect(decideDisableSecret(table, 'other')).toBeUndefined();
  });

  it('refuses protected mounts and the token auth method', () => {
    expect(errorOf(() => decideDisableSecret(base(), 'sys')).message).toBe('cannot unmount "sys/"');
    expect(errorOf(() => decideDisableAuth(base(), 'token')).message).toBe(
      'token credential backend cannot be disabled',
    );
  });
});

describe('decideTune', () => {
  const table = () => apply(base(), [enable(base(), 'secret', { type: 'kv' })]);

  it('changes TTLs, description and options', () => {
    const decision = decideTune(
      table(),
      'secret',
      tune({ default_lease_ttl: '1h', description: 'new' }, false),
    );
    expect(decision.event).toMatchObject({
      type: 'MountTuned',
      data: { description: 'new', config: { defaultLeaseTtl: 3600, maxLeaseTtl: 0 } },
    });
  });

  it('upgrades kv 1 -> 2 with Vault warning, refuses downgrades', () => {
    const up = decideTune(table(), 'secret', tune({ options: { version: '2' } }, false));
    expect(up.event?.data).toMatchObject({ options: { version: '2' } });
    expect(up.warnings[0]).toMatch(/^Upgrading mount from version 1 to version 2/);
    const v2 = apply(table(), [up.event]);
    expect(errorOf(() => decideTune(v2, 'secret', tune({ options: { version: '1' } }, false))).message).toBe(
      'cannot downgrade mount from version 2',
    );
  });

  it('answers nothing to change with no event', () => {
    expect(decideTune(table(), 'secret', tune({}, false)).event).toBeUndefined();
  });

  it('refuses untunable and unknown mounts and max < default', () => {
    expect(errorOf(() => decideTune(table(), 'sys', {})).message).toBe('cannot tune "sys/"');
    expect(errorOf(() => decideTune(table(), 'nope', {})).message).toBe(
      'tune of path "nope/" failed: no mount entry found',
    );
    expect(
      errorOf(() => decideTune(table(), 'secret', tune({ default_lease_ttl: 100, max_lease_ttl: 50 }, false)))
        .message,
    ).toBe('backend max lease TTL of 50 would be less than backend default lease TTL of 100');
  });

  it('resets a TTL with "system"', () => {
    const tuned = apply(table(), [decideTune(table(), 'secret', tune({ max_lease_ttl: '2h' }, false)).event]);
    const reset = decideTune(tuned, 'secret', tune({ max_lease_ttl: 'system' }, false));
    expect(reset.event?.data).toMatchObject({ config: { maxLeaseTtl: 0 } });
  });
});
