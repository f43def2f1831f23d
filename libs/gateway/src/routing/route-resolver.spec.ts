import {
  engineContract,
  kvV2Routes,
  systemRoutes,
  type MountEntry,
  type RouteTable,
} from '@coffer/contracts';
import { MountIndex } from './mount-index';
import { resolveRoute, type Routing } from './route-resolver';

const entry = (path: string, type: string, options: Record<string, string> = {}): MountEntry => ({
  path,
  uuid: `u-${path}`,
  accessor: 'a',
  type,
  namespace: '',
  options,
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
});

const c = engineContract('t.op');
const testTable: RouteTable = {
  engine: 't',
  service: 't',
  help: '',
  routes: [
    { pattern: 'roles', synopsis: '', operations: { list: { contract: c, summary: '' } } },
    { pattern: 'roles/:name', synopsis: '', operations: { read: { contract: c, summary: '' } } },
    { pattern: 'files/:path*', synopsis: '', operations: { read: { contract: c, summary: '' } } },
  ],
};

const index = new MountIndex([
  entry('sys/', 'system'),
  entry('secret/', 'kv', { version: '2' }),
  entry('t/', 't'),
  entry('pki/', 'pki'),
]);
const tables = (m: { type: string; options: Record<string, string> }): RouteTable | undefined =>
  m.type === 't' ? testTable : m.type === 'system' ? systemRoutes : m.type === 'kv' ? kvV2Routes : undefined;
const services = (type: string): string | undefined => (type === 't' ? 't' : undefined);
const resolve = (path: string, kind: Parameters<typeof resolveRoute>[3]): Routing =>
  resolveRoute(index, path, path, kind, { tableFor: tables, serviceFor: services });

const ok = (r: Routing) => {
  if (r.kind !== 'route')
    throw new Error(`expected a route, got ${r.kind === 'failed' ? r.error.message : r.kind}`);
  return r;
};
const failed = (r: Routing) => {
  if (r.kind !== 'failed') throw new Error('expected a failure');
  return r.error;
};

describe('resolveRoute', () => {
  it('finds mount, route and params', () => {
    const r = ok(resolve('secret/data/a/b', 'read'));
    expect(r.route.pattern).toBe('data/:path*');
    expect(r.params).toEqual({ path: 'a/b' });
    expect(r.path).toBe('data/a/b');
    expect(r.match.mount.uuid).toBe('u-secret/');
  });

  it('lists with the trailing slash first (kv folders), then without (policies/acl)', () => {
    expect(ok(resolve('secret/metadata/a', 'list')).params).toEqual({ path: 'a/' });
    expect(ok(resolve('secret/metadata', 'list')).params).toEqual({ path: '' });
    expect(ok(resolve('secret/metadata/a/', 'list')).path).toBe('metadata/a/');
    expect(ok(resolve('sys/policies/acl', 'list')).route.pattern).toBe('policies/acl');
    expect(ok(resolve('sys/policies/acl/', 'list')).path).toBe('policies/acl');
    expect(ok(resolve('t/roles', 'list')).path).toBe('roles');
  });

  it('answers no handler, unsupported path, unsupported operation and no replica', () => {
    expect(failed(resolve('nomount/x', 'read')).message).toBe(
      'no handler for route "nomount/x". route entry not found.',
    );
    expect(failed(resolve('t/nothing', 'read')).code).toBe('unsupported_path');
    const r = resolve('t/roles/web', 'delete');
    expect(failed(r).code).toBe('unsupported_operation');
    expect(r.kind === 'failed' && r.route?.pattern).toBe('roles/:name');
    expect(failed(resolve('pki/issue/x', 'write')).message).toBe('no running replica of the "pki" service');
  });

  it('refuses path parameters ending in a period', () => {
    expect(failed(resolve('t/roles/web.', 'read')).code).toBe('unsupported_path');
    expect(failed(resolve('t/files/a/b.', 'read')).code).toBe('unsupported_path');
    expect(failed(resolve('t/roles/web.', 'delete')).code).toBe('unsupported_path');
    expect(ok(resolve('t/roles/w.eb', 'read')).params).toEqual({ name: 'w.eb' });
  });

  it('returns the mount and table for help', () => {
    const r = resolve('t/roles', 'help');
    expect(r.kind).toBe('help');
  });
});
