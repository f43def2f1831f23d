import type { MountEntry } from '@coffer/contracts';
import { MountIndex } from './mount-index';

const entry = (path: string, namespace = ''): MountEntry => ({
  path,
  uuid: `u-${namespace}${path}`,
  accessor: 'a',
  type: 'kv',
  namespace,
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
});

describe('MountIndex', () => {
  const index = new MountIndex([
    entry('secret/'),
    entry('secret/team/'),
    entry('auth/token/'),
    entry('kv/', 'ns1/'),
  ]);

  it.each([
    ['secret/data/foo', 'u-secret/', 'data/foo'],
    ['secret/', 'u-secret/', ''],
    ['secret', 'u-secret/', ''],
    ['secret/team/x', 'u-secret/team/', 'x'],
    ['secret/team', 'u-secret/team/', ''],
    ['secret/teams/x', 'u-secret/', 'teams/x'],
    ['auth/token/lookup-self', 'u-auth/token/', 'lookup-self'],
    ['ns1/kv/a/', 'u-ns1/kv/', 'a/'],
  ])('%s -> %s + %j', (path, uuid, rel) => {
    const m = index.find(path);
    expect(m?.mount.uuid).toBe(uuid);
    expect(m?.rel).toBe(rel);
  });

  it.each(['secre', 'auth/tok', 'auth', 'kv/a', '', 'other/secret/x'])('%j has no mount', (path) => {
    expect(index.find(path)).toBeUndefined();
  });

  it('hands engines the mount info only', () => {
    expect(Object.keys(index.find('secret/x')?.mount ?? {}).sort()).toEqual(
      ['accessor', 'config', 'namespace', 'options', 'path', 'type', 'uuid'].sort(),
    );
  });
});
