import { matchRoute, type MountEntry, type RouteTable } from '@coffer/contracts';
import {
  approleRoutes,
  identityRoutes,
  systemRoutes,
  tokenRoutes,
  userpassRoutes,
} from '@coffer/contracts/core-sys';
import { cubbyholeRoutes, kvV1Routes, kvV2Routes } from '@coffer/contracts/kv';
import type { ReplicationModes } from '@coffer/contracts/replication';
import { MountIndex } from '../routing/mount-index';
import {
  addressesLocalMount,
  DR_SECONDARY_REFUSAL,
  drSecondaryAllows,
  healthWithReplication,
  READ_ONLY_STORAGE,
  servedInMode,
  type ModeTarget,
} from './dr-secondary.gate';

/** The route a mount-relative path resolves to, as the gateway's target. */
const routeTarget = (table: RouteTable, rel: string, local = false): ModeTarget => {
  const match = matchRoute(table, rel);
  if (!match) throw new Error(`no route for ${rel}`);
  return { service: match.route.service ?? table.service, local, replicated: match.route.replicated };
};

const kv = routeTarget(kvV2Routes, 'data/a');

const entry = (path: string, local: boolean, namespace = ''): MountEntry => ({
  path,
  uuid: `u-${path}`,
  accessor: `a-${path}`,
  type: 'kv',
  namespace,
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local,
  seal_wrap: false,
});

const modes = (dr: ReplicationModes['dr'], performance: ReplicationModes['performance'] = 'disabled') => ({
  dr,
  performance,
  performancePrimaryApiAddr: '',
});

const health = (status: number, body?: Record<string, unknown>) => ({
  status,
  body: body === undefined ? undefined : JSON.stringify(body),
  contentType: 'application/json',
});

describe('the replication gate', () => {
  it('lets a DR secondary answer replication, health and seal routes only', () => {
    for (const path of [
      'sys/health',
      'sys/seal-status',
      'sys/unseal',
      'sys/replication/status',
      'sys/replication/dr/status',
      'sys/replication/performance/status',
      'sys/replication/dr/secondary/promote',
      'sys/replication/dr/secondary/generate-operation-token/attempt',
      'sys/decode-token',
    ])
      expect(drSecondaryAllows(path)).toBe(true);
    for (const path of [
      'secret/data/a',
      'sys/mounts',
      'sys/replication/dr/primary/enable',
      'auth/token/lookup-self',
    ])
      expect(drSecondaryAllows(path)).toBe(false);
    expect(() => servedInMode(modes('secondary'), 'secret/data/a', false, kv, {})).toThrow(
      DR_SECONDARY_REFUSAL,
    );
    expect(servedInMode(modes('primary'), 'secret/data/a', true, kv, {})).toBe('local');
  });

  it('forwards replicated kv writes on a performance secondary, serves its reads and other services', () => {
    const perf = modes('disabled', 'secondary');
    expect(servedInMode(perf, 'secret/data/a', true, kv, {})).toBe('forward');
    expect(servedInMode(perf, 'secret/data/a', false, kv, {})).toBe('local');
    expect(servedInMode(perf, 'pki/issue/r', true, { service: 'pki', local: false }, {})).toBe('local');
    // not a secondary: nothing is forwarded
    expect(servedInMode(modes('disabled', 'primary'), 'secret/data/a', true, kv, {})).toBe('local');
    expect(servedInMode(modes('disabled'), 'secret/data/a', true, kv, {})).toBe('local');
  });

  it('serves writes to local kv mounts and cubbyhole on the performance secondary itself', () => {
    const perf = modes('disabled', 'secondary');
    expect(servedInMode(perf, 'local-kv/data/a', true, routeTarget(kvV2Routes, 'data/a', true), {})).toBe(
      'local',
    );
    expect(servedInMode(perf, 'local-v1/a', true, routeTarget(kvV1Routes, 'a', true), {})).toBe('local');
    expect(servedInMode(perf, 'cubbyhole/a', true, routeTarget(cubbyholeRoutes, 'a', true), {})).toBe(
      'local',
    );
    // cubbyhole is never forwarded, even were its mount entry not local
    expect(servedInMode(perf, 'cubbyhole/a', true, routeTarget(cubbyholeRoutes, 'a'), {})).toBe('local');
    // a replicated kv v1 mount's writes and kv v2's other write routes are forwarded
    expect(servedInMode(perf, 'kv/a', true, routeTarget(kvV1Routes, 'a'), {})).toBe('forward');
    for (const rel of ['config', 'metadata/a', 'delete/a', 'undelete/a', 'destroy/a'])
      expect([rel, servedInMode(perf, rel, true, routeTarget(kvV2Routes, rel), {})]).toEqual([
        rel,
        'forward',
      ]);
  });

  it('honours X-Vault-No-Request-Forwarding / X-Service-No-Request-Forwarding (Vault: read-only storage)', () => {
    const perf = modes('disabled', 'secondary');
    for (const name of ['x-vault-no-request-forwarding', 'x-service-no-request-forwarding'])
      expect(() => servedInMode(perf, 'secret/data/a', true, kv, { [name]: 'true' })).toThrow(
        READ_ONLY_STORAGE,
      );
    // an empty value is no value (Vault checks for a non-empty header)
    expect(servedInMode(perf, 'secret/data/a', true, kv, { 'x-vault-no-request-forwarding': '' })).toBe(
      'forward',
    );
    // reads are served here whatever the header says
    expect(servedInMode(perf, 'secret/data/a', false, kv, { 'x-vault-no-request-forwarding': '1' })).toBe(
      'local',
    );
  });

  it('forwards writes to replicated core-sys data on a performance secondary (Vault: request forwarding)', () => {
    const perf = modes('disabled', 'secondary');
    const forwarded: Array<[RouteTable, string]> = [
      [systemRoutes, 'policies/acl/reader'],
      [systemRoutes, 'policy/reader'],
      [systemRoutes, 'policies/rgp/r'],
      [systemRoutes, 'policies/egp/e'],
      [systemRoutes, 'policies/password/p'],
      [systemRoutes, 'namespaces/team'],
      [userpassRoutes, 'users/alice'],
      [userpassRoutes, 'users/alice/password'],
      [userpassRoutes, 'users/alice/policies'],
      [approleRoutes, 'role/web'],
      [approleRoutes, 'role/web/policies'],
      [approleRoutes, 'role/web/role-id'],
      [approleRoutes, 'role/web/secret-id'],
      [approleRoutes, 'role/web/custom-secret-id'],
      [approleRoutes, 'role/web/secret-id/destroy'],
      [approleRoutes, 'role/web/secret-id-accessor/destroy'],
      [identityRoutes, 'entity'],
      [identityRoutes, 'entity/id/e-1'],
      [identityRoutes, 'entity/name/bob'],
      [identityRoutes, 'entity-alias'],
      [identityRoutes, 'entity-alias/id/a-1'],
      [identityRoutes, 'entity/merge'],
      [identityRoutes, 'group'],
      [identityRoutes, 'group/name/ops'],
      [identityRoutes, 'group-alias/id/g-1'],
      [tokenRoutes, 'roles/ci'],
    ];
    for (const [table, rel] of forwarded) {
      expect([rel, servedInMode(perf, rel, true, routeTarget(table, rel), {})]).toEqual([rel, 'forward']);
      // reads stay here (the replicated copy), as do the same writes on a primary
      expect(servedInMode(perf, rel, false, routeTarget(table, rel), {})).toBe('local');
      expect(servedInMode(modes('primary', 'primary'), rel, true, routeTarget(table, rel), {})).toBe('local');
    }
    const local: Array<[RouteTable, string]> = [
      // tokens and leases are the secondary's own, as are logins (they read replicated data here)
      [tokenRoutes, 'create'],
      [tokenRoutes, 'create/ci'],
      [tokenRoutes, 'revoke-self'],
      [tokenRoutes, 'renew-self'],
      [tokenRoutes, 'lookup'],
      [systemRoutes, 'leases/revoke'],
      [systemRoutes, 'leases/renew'],
      [userpassRoutes, 'login/alice'],
      [approleRoutes, 'login'],
      [approleRoutes, 'role/web/secret-id/lookup'],
      [approleRoutes, 'tidy/secret-id'],
      [identityRoutes, 'lookup/entity'],
      // per-cluster sys state
      [systemRoutes, 'seal'],
      [systemRoutes, 'unseal'],
      [systemRoutes, 'generate-root/attempt'],
      [systemRoutes, 'capabilities-self'],
      [systemRoutes, 'audit/file'],
      [systemRoutes, 'wrapping/wrap'],
      [systemRoutes, 'policies/password/p/generate'],
    ];
    for (const [table, rel] of local)
      expect([rel, servedInMode(perf, rel, true, routeTarget(table, rel), {})]).toEqual([rel, 'local']);
    // the users of a local auth method stay on its cluster
    expect(
      servedInMode(perf, 'users/alice', true, routeTarget(userpassRoutes, 'users/alice', true), {}),
    ).toBe('local');
    // X-Vault-No-Request-Forwarding: Vault's read-only refusal, as for kv
    expect(() =>
      servedInMode(perf, 'users/alice', true, routeTarget(userpassRoutes, 'users/alice'), {
        'x-vault-no-request-forwarding': 'true',
      }),
    ).toThrow(READ_ONLY_STORAGE);
  });

  it('decides mount changes once the body tells whether the mount addressed is local', () => {
    const perf = modes('disabled', 'secondary');
    const index = new MountIndex([
      entry('shared/', false),
      entry('mine/', true),
      entry('auth/local-up/', true),
      entry('theirs/', true, 'ns1/'),
    ]);
    const route = (rel: string) => {
      const match = matchRoute(systemRoutes, rel);
      if (!match) throw new Error(rel);
      return match;
    };
    const local = (rel: string, body: unknown, namespace = '') =>
      addressesLocalMount(index, namespace, route(rel).route, route(rel).params, body);
    // enable: the body says
    expect(local('mounts/new', { type: 'kv', local: true })).toBe(true);
    expect(local('mounts/new', { type: 'kv', local: 'true' })).toBe(true);
    expect(local('mounts/new', { type: 'kv' })).toBe(false);
    expect(local('auth/up', { type: 'userpass', local: true })).toBe(true);
    // disable, tune, remount: the mount this cluster has at that path
    expect(local('mounts/mine', undefined)).toBe(true);
    expect(local('mounts/mine/tune', { max_lease_ttl: '1h' })).toBe(true);
    expect(local('mounts/shared', undefined)).toBe(false);
    expect(local('auth/local-up', undefined)).toBe(true);
    expect(local('auth/local-up/tune', {})).toBe(true);
    expect(local('remount', { from: 'mine', to: 'mine2' })).toBe(true);
    expect(local('remount', { from: 'shared', to: 'shared2' })).toBe(false);
    // in a namespace, its own mounts
    expect(local('mounts/theirs', undefined, 'ns1/')).toBe(true);
    expect(local('mounts/theirs', undefined)).toBe(false);

    const target = (rel: string, addressedLocal?: boolean): ModeTarget => ({
      ...routeTarget(systemRoutes, rel),
      ...(addressedLocal === undefined ? {} : { addressedLocal }),
    });
    expect(route('mounts/x').route.replicated).toBe('mount');
    // not decided before the body is read; then forwarded unless local
    expect(servedInMode(perf, 'sys/mounts/x', true, target('mounts/x'), {})).toBe('local');
    expect(servedInMode(perf, 'sys/mounts/x', true, target('mounts/x', false), {})).toBe('forward');
    expect(servedInMode(perf, 'sys/mounts/x', true, target('mounts/x', true), {})).toBe('local');
    expect(servedInMode(perf, 'sys/auth/x/tune', true, target('auth/x/tune', false), {})).toBe('forward');
    expect(servedInMode(perf, 'sys/remount', true, target('remount', false), {})).toBe('forward');
    // a local mount change is served here even when no forwarding is asked
    expect(
      servedInMode(perf, 'sys/mounts/x', true, target('mounts/x', true), {
        'x-vault-no-request-forwarding': '1',
      }),
    ).toBe('local');
  });

  it('answers health with the modes, and drsecondarycode on an unsealed DR secondary', () => {
    const ok = health(200, { initialized: true, sealed: false, replication_dr_mode: 'disabled' });
    const dr = healthWithReplication(ok, modes('secondary'), {});
    expect(dr.status).toBe(472);
    expect(JSON.parse(dr.body ?? '')).toMatchObject({ replication_dr_mode: 'secondary' });
    expect(healthWithReplication(ok, modes('secondary'), { drsecondarycode: '299' }).status).toBe(299);
    const primary = healthWithReplication(ok, modes('primary', 'primary'), {});
    expect(primary.status).toBe(200);
    expect(JSON.parse(primary.body ?? '')).toMatchObject({
      replication_dr_mode: 'primary',
      replication_performance_mode: 'primary',
    });
    // sealed first, as Vault: the seal code wins over the DR code
    const sealed = health(503, { initialized: true, sealed: true });
    expect(healthWithReplication(sealed, modes('secondary'), {}).status).toBe(503);
    // HEAD: no body, the status tells
    expect(healthWithReplication(health(200), modes('secondary'), {}).status).toBe(472);
    expect(healthWithReplication(health(503), modes('secondary'), {}).status).toBe(503);
    // a bad code parameter stays core-sys's 400
    expect(healthWithReplication(health(400, { errors: ['x'] }), modes('secondary'), {}).status).toBe(400);
  });
});
