import type { MountEntry } from '@coffer/contracts';
import { dynamicFilter } from './paths-filter';

const mount = (path: string, over: Partial<MountEntry> = {}): MountEntry => ({
  path,
  uuid: `uuid-${over.namespace ?? ''}${path}`,
  accessor: `acc-${path}`,
  type: 'kv',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  description: '',
  table: 'secret',
  local: false,
  seal_wrap: false,
  ...over,
});

const table = [
  mount('sys/', { table: 'system' }),
  mount('secret/'),
  mount('team/'),
  mount('userpass/', { table: 'auth' }),
  mount('scratch/', { local: true }),
  mount('ns-kv/', { namespace: 'eng/' }),
];

describe('dynamicFilter', () => {
  it('filters nothing but local mounts without a filter', () => {
    expect(dynamicFilter(undefined, table)).toEqual({
      mounts: ['scratch/'],
      namespaces: [],
      mountUuids: ['uuid-scratch/'],
    });
  });

  it('deny mode drops the listed mounts and namespaces', () => {
    const f = dynamicFilter({ mode: 'deny', paths: ['team/', 'eng/'] }, table);
    expect(f.mounts).toEqual(['eng/ns-kv/', 'scratch/', 'team/']);
    expect(f.namespaces).toEqual(['eng/']);
  });

  it('allow mode keeps only the listed ones (auth mounts named under auth/)', () => {
    const f = dynamicFilter({ mode: 'allow', paths: ['secret/', 'auth/userpass/'] }, table);
    expect(f.mounts).toEqual(['eng/ns-kv/', 'scratch/', 'team/']);
    expect(f.namespaces).toEqual(['eng/']);
  });
});
