import { DomainError, type MountInfo, type RouteDef, type RouteTable } from '@coffer/contracts';
import type { Routing } from '../routing/route-resolver';
import {
  aclPathFor,
  assertTokenReaches,
  normaliseNamespacePath,
  normaliseQualifiedName,
  qualifiedPolicyNames,
  restrictRouting,
  scopedAclPath,
} from './namespace-scope';

const mount = (namespace: string): MountInfo => ({
  path: 'sys/',
  uuid: 'u',
  accessor: 'a',
  type: 'system',
  namespace,
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
});
const routed = (namespace: string, route: Partial<RouteDef> = {}): Routing => ({
  kind: 'route',
  match: {
    entry: { ...mount(namespace), description: '', table: 'system', local: false, seal_wrap: false },
    mount: mount(namespace),
    rel: 'x',
  },
  table: {} as RouteTable,
  route: { pattern: 'x', synopsis: '', operations: {}, ...route },
  params: {},
  path: 'x',
});

describe('token namespaces', () => {
  it('a token acts in its namespace and below, never above or beside', () => {
    expect(() => assertTokenReaches('', 'ns1/', 'ns1/x')).not.toThrow();
    expect(() => assertTokenReaches('ns1/', 'ns1/', 'ns1/x')).not.toThrow();
    expect(() => assertTokenReaches('ns1/', 'ns1/ns2/', 'ns1/ns2/x')).not.toThrow();
    expect(() => assertTokenReaches('ns1/', '', 'secret/x')).toThrow(DomainError);
    expect(() => assertTokenReaches('ns1/', 'ns10/', 'ns10/x')).toThrow(DomainError);
    expect(() => assertTokenReaches('ns1/', undefined, 'ns2/x')).toThrow(DomainError);
    expect(() => assertTokenReaches('ns1/', undefined, 'ns1/nothing')).not.toThrow();
  });

  it('ACL paths are relative to the token namespace', () => {
    expect(aclPathFor('', 'ns1/secret/x')).toBe('ns1/secret/x');
    expect(aclPathFor('ns1/', 'ns1/ns2/secret/x')).toBe('ns2/secret/x');
    expect(scopedAclPath({ namespace: 'ns1/' }, routed('ns1/'), 'ns1/sys/x', 'ns1/sys/x')).toBe('sys/x');
    expect(() => scopedAclPath({ namespace: 'ns1/' }, routed(''), 'sys/x', 'sys/x')).toThrow(DomainError);
    expect(scopedAclPath(undefined, routed(''), 'sys/x', 'sys/x')).toBe('sys/x');
  });

  it('qualifies policy names with the namespace and drops names that would reach elsewhere', () => {
    expect(qualifiedPolicyNames('', ['default', 'a'])).toEqual(['default', 'a']);
    expect(qualifiedPolicyNames('ns1/', ['default', 'a', '../b', 'ns2/c'])).toEqual(['ns1/default', 'ns1/a']);
    expect(normaliseQualifiedName(' NS1/Reader ')).toBe('NS1/reader');
    expect(normaliseQualifiedName('Reader')).toBe('reader');
  });

  it('normalises configured namespace paths', () => {
    expect(normaliseNamespacePath(undefined)).toBe('');
    expect(normaliseNamespacePath('admin')).toBe('admin/');
    expect(normaliseNamespacePath('/a/b/')).toBe('a/b/');
  });
});

describe('restricted routes', () => {
  it('are served in the root and the administrative namespace only', () => {
    expect(restrictRouting(routed('', { restricted: true }), '').kind).toBe('route');
    expect(restrictRouting(routed('admin/', { restricted: true }), 'admin/').kind).toBe('route');
    const refused = restrictRouting(routed('ns1/', { restricted: true }), 'admin/');
    expect(refused.kind).toBe('failed');
    expect(refused.kind === 'failed' && refused.error.code).toBe('unsupported_path');
    expect(restrictRouting(routed('ns1/'), 'admin/').kind).toBe('route');
  });
});
