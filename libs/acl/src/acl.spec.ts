import type { EntityFacts, Operation } from '@coffer/contracts';
import { DEFAULT_POLICY, compileAcl, parsePolicy, type CompileAclOptions } from './index';

const acl = (texts: string[], options?: CompileAclOptions) =>
  compileAcl(
    texts.map((t, i) => parsePolicy(`p${i}`, t)),
    options,
  );
const allowed = (
  a: ReturnType<typeof acl>,
  path: string,
  operation: Operation,
  params?: Record<string, unknown>,
) => a.allowOperation({ path, operation, params }).allowed;

const OPS: Operation[] = ['read', 'create', 'update', 'patch', 'delete', 'list'];

describe('compileAcl / allowOperation', () => {
  it('denies by default', () => {
    const a = acl([]);
    expect(a.allowOperation({ path: 'secret/foo', operation: 'read' })).toEqual({
      allowed: false,
      capabilities: ['deny'],
      sudo: false,
      root: false,
      deniedReason: 'capability',
    });
    expect(a.capabilities('secret/foo')).toEqual(['deny']);
  });

  it.each(OPS)('each operation needs its own capability: %s', (op) => {
    const a = acl([`path "x" { capabilities = ["${op}"] }`]);
    for (const other of OPS) expect(allowed(a, 'x', other)).toBe(other === op);
  });

  it('reports capabilities and sudo of the applying rule', () => {
    const a = acl(['path "sys/audit/*" { capabilities = ["update", "sudo", "read"] }']);
    expect(a.allowOperation({ path: 'sys/audit/file', operation: 'update' })).toEqual({
      allowed: true,
      capabilities: ['read', 'sudo', 'update'],
      sudo: true,
      root: false,
    });
    expect(a.allowOperation({ path: 'sys/audit/file', operation: 'delete' })).toMatchObject({
      allowed: false,
      sudo: true,
      deniedReason: 'capability',
    });
  });

  it('root allows everything', () => {
    const a = compileAcl([], { root: true });
    expect(a.root).toBe(true);
    expect(a.allowOperation({ path: 'anything/at/all', operation: 'delete' })).toEqual({
      allowed: true,
      capabilities: ['root'],
      sudo: true,
      root: true,
    });
    expect(a.capabilities('x')).toEqual(['root']);
    expect(a.resultant()).toEqual({ root: true });
    expect(a.hasMountAccess('secret/')).toBe(true);
    expect(compileAcl([parsePolicy('root', '')]).root).toBe(true);
  });

  it('ignores leading slashes in request paths', () => {
    expect(allowed(acl(['path "secret/x" { capabilities = ["read"] }']), '//secret/x', 'read')).toBe(true);
  });

  describe('deny', () => {
    it('wins over every other capability in the same pattern across policies, including sudo', () => {
      const a = acl([
        'path "secret/x" { capabilities = ["read", "update", "sudo"] }',
        'path "secret/x" { capabilities = ["deny"] }',
        'path "secret/x" { capabilities = ["list"] }',
      ]);
      expect(a.allowOperation({ path: 'secret/x', operation: 'read' })).toEqual({
        allowed: false,
        capabilities: ['deny'],
        sudo: false,
        root: false,
        deniedReason: 'capability',
      });
      expect(a.capabilities('secret/x')).toEqual(['deny']);
    });

    it('a more specific deny beats a broader grant', () => {
      const a = acl([
        'path "secret/*" { capabilities = ["read"] }\npath "secret/super" { capabilities = ["deny"] }',
      ]);
      expect(allowed(a, 'secret/other', 'read')).toBe(true);
      expect(allowed(a, 'secret/super', 'read')).toBe(false);
    });
  });

  describe('matching', () => {
    const a = acl([
      `path "secret/exact" { capabilities = ["read"] }
       path "secret/zip-*" { capabilities = ["list"] }
       path "secret/data/+/teamb" { capabilities = ["update"] }
       path "kv/+/config/*" { capabilities = ["delete"] }`,
    ]);

    it('exact paths match only themselves', () => {
      expect(allowed(a, 'secret/exact', 'read')).toBe(true);
      expect(allowed(a, 'secret/exact/', 'read')).toBe(false);
      expect(allowed(a, 'secret/exac', 'read')).toBe(false);
    });

    it('a trailing * is a prefix match across segments', () => {
      expect(allowed(a, 'secret/zip-zap', 'list')).toBe(true);
      expect(allowed(a, 'secret/zip-zap/zong', 'list')).toBe(true);
      expect(allowed(a, 'secret/zip-', 'list')).toBe(true);
      expect(allowed(a, 'secret/zip', 'list')).toBe(false);
    });

    it('+ matches exactly one segment', () => {
      expect(allowed(a, 'secret/data/team-a/teamb', 'update')).toBe(true);
      expect(allowed(a, 'secret/data/a/b/teamb', 'update')).toBe(false);
      expect(allowed(a, 'secret/data/teamb', 'update')).toBe(false);
      expect(allowed(a, 'secret/data/x/teamb/more', 'update')).toBe(false);
    });

    it('+ combines with a trailing glob', () => {
      expect(allowed(a, 'kv/app1/config/db', 'delete')).toBe(true);
      expect(allowed(a, 'kv/app1/config/', 'delete')).toBe(true);
      expect(allowed(a, 'kv/app1/config', 'delete')).toBe(false);
      expect(allowed(a, 'kv/app1/other/db', 'delete')).toBe(false);
    });

    it('an exact rule wins over any glob', () => {
      const b = acl([
        'path "secret/*" { capabilities = ["read", "list"] }\npath "secret/foo" { capabilities = ["update"] }',
      ]);
      expect(b.capabilities('secret/foo')).toEqual(['update']);
      expect(b.capabilities('secret/foo2')).toEqual(['list', 'read']);
    });

    it('LIST on "dir/" also uses the rule written without the trailing slash', () => {
      const b = acl([
        'path "secret/dir" { capabilities = ["list"] }\npath "other/d*" { capabilities = ["list"] }',
      ]);
      expect(allowed(b, 'secret/dir/', 'list')).toBe(true);
      expect(allowed(b, 'secret/dir/', 'read')).toBe(false);
      expect(b.capabilities('secret/dir/')).toEqual(['list']);
      expect(allowed(b, 'other/dir/', 'list')).toBe(true);
    });
  });

  describe('priority among overlapping patterns', () => {
    const caps = (patterns: Record<string, string>, path: string) =>
      acl([
        Object.entries(patterns)
          .map(([p, c]) => `path "${p}" { capabilities = ["${c}"] }`)
          .join('\n'),
      ]).capabilities(path);

    it('(1) the pattern whose first wildcard comes later wins', () => {
      expect(caps({ 'secret/+/x': 'read', 'secret/a/*': 'list' }, 'secret/a/x')).toEqual(['list']);
      expect(caps({ 'foo/+/bar/baz': 'read', 'foo/bar/+/baz': 'list' }, 'foo/bar/bar/baz')).toEqual(['list']);
    });

    it('(2) at the same position, a pattern without a trailing * wins', () => {
      expect(caps({ 'foo/+/ba*': 'read', 'foo/+/bar': 'list' }, 'foo/x/bar')).toEqual(['list']);
      expect(caps({ 'foo/*': 'read', 'foo/+': 'list' }, 'foo/x')).toEqual(['list']);
    });

    it('(3) then fewer + segments wins', () => {
      expect(caps({ 'foo/+/+/baz': 'read', 'foo/+/bar/baz': 'list' }, 'foo/x/bar/baz')).toEqual(['list']);
    });

    it('(4) then the longer pattern wins', () => {
      expect(caps({ 'foo/+/bar/b*': 'read', 'foo/+/bar/ba*': 'list' }, 'foo/x/bar/baz')).toEqual(['list']);
      expect(caps({ 'secret/*': 'read', 'secret/team/*': 'list' }, 'secret/team/x')).toEqual(['list']);
    });

    it('(5) then the lexicographically larger wins', () => {
      expect(caps({ 'foo/+/a+b': 'read', 'foo/+/a+c': 'list' }, 'foo/x/a+c')).toEqual(['list']);
    });

    it('only the winning pattern applies: capabilities are not united across patterns', () => {
      expect(caps({ 'secret/*': 'read', 'secret/a/*': 'list' }, 'secret/a/b')).toEqual(['list']);
    });
  });

  describe('the same pattern in several policies', () => {
    it('unites capabilities', () => {
      const a = acl([
        'path "s/*" { capabilities = ["read"] }',
        'path "s/*" { capabilities = ["list", "sudo"] }',
      ]);
      expect(a.capabilities('s/x')).toEqual(['list', 'read', 'sudo']);
    });

    it('keeps the lowest wrapping TTLs', () => {
      const a = acl([
        'path "s" {\n capabilities = ["read"]\n min_wrapping_ttl = "10s"\n max_wrapping_ttl = "100s"\n}',
        'path "s" {\n capabilities = ["read"]\n min_wrapping_ttl = "5s"\n max_wrapping_ttl = "60s"\n}',
        'path "s" { capabilities = ["list"] }',
      ]);
      expect(a.permissions('s')).toMatchObject({ minWrappingTtl: 5, maxWrappingTtl: 60 });
      expect(a.allowOperation({ path: 's', operation: 'read', wrapTtl: 61 })).toMatchObject({
        allowed: false,
        deniedReason: 'wrapping',
      });
      expect(a.allowOperation({ path: 's', operation: 'read', wrapTtl: 4 }).allowed).toBe(false);
      expect(a.allowOperation({ path: 's', operation: 'read' }).allowed).toBe(false);
      expect(a.allowOperation({ path: 's', operation: 'read', wrapTtl: 30 }).allowed).toBe(true);
    });

    it('merges parameter constraints ([] absorbs, lists concatenate, required united)', () => {
      const a = acl([
        'path "s" {\n capabilities = ["update"]\n allowed_parameters = { a = ["1"], b = [] }\n required_parameters = ["a"]\n}',
        'path "s" {\n capabilities = ["update"]\n allowed_parameters = { a = ["2"], b = ["x"], c = [] }\n required_parameters = ["c"]\n}',
      ]);
      expect(a.permissions('s')?.allowedParameters).toEqual(
        new Map<string, unknown[]>([
          ['a', ['2', '1']],
          ['b', []],
          ['c', []],
        ]),
      );
      expect(a.permissions('s')?.requiredParameters).toEqual(['a', 'c']);
      expect(allowed(a, 's', 'update', { a: '1', c: 'z', b: 'anything' })).toBe(true);
      expect(allowed(a, 's', 'update', { a: '3', c: 'z' })).toBe(false);
    });

    it('a wrapping-TTL mix with min above max denies', () => {
      const a = acl([
        'path "s" {\n capabilities = ["read"]\n min_wrapping_ttl = "50s"\n}',
        'path "s" {\n capabilities = ["read"]\n max_wrapping_ttl = "10s"\n}',
      ]);
      expect(a.allowOperation({ path: 's', operation: 'read', wrapTtl: 10 })).toMatchObject({
        allowed: false,
      });
    });
  });

  describe('templated paths', () => {
    const entity: EntityFacts = {
      id: 'ent-1',
      name: 'alice',
      metadata: { team: 'blue', empty: '' },
      aliases: [{ mount_accessor: 'auth_userpass_1234', name: 'alice-login' }],
      groups: [{ id: 'grp-1', name: 'admins' }],
    };
    const policy = `
      path "secret/data/{{identity.entity.id}}/*" { capabilities = ["read"] }
      path "secret/data/by-name/{{identity.entity.name}}" { capabilities = ["read"] }
      path "secret/data/team/{{ identity.entity.metadata.team }}/*" { capabilities = ["list"] }
      path "secret/data/alias/{{identity.entity.aliases.auth_userpass_1234.name}}" { capabilities = ["update"] }
      path "secret/data/group/{{identity.groups.ids.grp-1.name}}" { capabilities = ["delete"] }
      path "secret/data/gid/{{identity.groups.names.admins.id}}" { capabilities = ["create"] }
      path "secret/data/missing/{{identity.entity.metadata.nope}}" { capabilities = ["read"] }
      path "secret/data/static" { capabilities = ["read"] }
    `;

    it('resolves templates against the entity facts', () => {
      const a = acl([policy], { entity });
      expect(a.capabilities('secret/data/ent-1/x')).toEqual(['read']);
      expect(a.capabilities('secret/data/by-name/alice')).toEqual(['read']);
      expect(a.capabilities('secret/data/team/blue/x')).toEqual(['list']);
      expect(a.capabilities('secret/data/alias/alice-login')).toEqual(['update']);
      expect(a.capabilities('secret/data/group/admins')).toEqual(['delete']);
      expect(a.capabilities('secret/data/gid/grp-1')).toEqual(['create']);
      expect(a.capabilities('secret/data/missing/')).toEqual(['deny']);
      expect(a.capabilities('secret/data/static')).toEqual(['read']);
    });

    it('drops templated paths when there is no entity', () => {
      const a = acl([policy]);
      expect(a.capabilities('secret/data/ent-1/x')).toEqual(['deny']);
      expect(a.capabilities('secret/data/static')).toEqual(['read']);
      expect(Object.keys(a.resultant().exact_paths ?? {})).toEqual(['secret/data/static']);
    });

    it('drops a path whose template output contains wildcards', () => {
      const a = acl(['path "secret/{{identity.entity.name}}" { capabilities = ["read"] }'], {
        entity: { ...entity, name: 'a*' },
      });
      expect(a.capabilities('secret/a*')).toEqual(['deny']);
    });

    it('resolves time templates against the given clock', () => {
      const a = acl(['path "t/{{time.now.plus.1h}}" { capabilities = ["read"] }'], {
        now: new Date(1_000_000_000),
      });
      expect(a.capabilities(`t/${1_000_000 + 3600}`)).toEqual(['read']);
    });
  });

  it('applies the namespace prefix of a policy', () => {
    const a = compileAcl([
      parsePolicy('p', 'path "/secret/*" { capabilities = ["read"] }', { namespace: 'ns1/' }),
    ]);
    expect(a.capabilities('ns1/secret/x')).toEqual(['read']);
    expect(a.capabilities('secret/x')).toEqual(['deny']);
  });

  it('gives the default policy its usual powers', () => {
    const a = compileAcl([parsePolicy('default', DEFAULT_POLICY)], {
      entity: { id: 'e', name: 'n', metadata: {}, aliases: [], groups: [] },
    });
    expect(allowed(a, 'auth/token/lookup-self', 'read')).toBe(true);
    expect(allowed(a, 'auth/token/renew-self', 'update')).toBe(true);
    expect(allowed(a, 'sys/capabilities-self', 'update')).toBe(true);
    expect(allowed(a, 'cubbyhole/foo', 'create')).toBe(true);
    expect(allowed(a, 'sys/wrapping/unwrap', 'update')).toBe(true);
    expect(allowed(a, 'identity/entity/id/e', 'read')).toBe(true);
    expect(allowed(a, 'identity/oidc/provider/p1/authorize', 'read')).toBe(true);
    expect(allowed(a, 'secret/data/x', 'read')).toBe(false);
  });

  it('renders the resultant ACL like sys/internal/ui/resultant-acl', () => {
    const a = acl([
      `path "secret/foo" {\n capabilities = ["update", "read", "patch"]\n max_wrapping_ttl = "90s"\n required_parameters = ["a"]\n allowed_parameters = { a = ["x"] }\n}
       path "secret/bar/*" { capabilities = ["deny"] }
       path "secret/+/baz" { capabilities = ["read"] }`,
    ]);
    expect(a.resultant()).toEqual({
      root: false,
      exact_paths: {
        'secret/foo': {
          capabilities: ['read', 'update'],
          max_wrapping_ttl: 90,
          required_parameters: ['a'],
          allowed_parameters: { a: ['x'] },
        },
      },
      glob_paths: { 'secret/bar/': { capabilities: ['deny'] } },
    });
  });

  it('hasMountAccess sees any non-deny rule under a mount', () => {
    const a = acl([
      `path "secret/data/app/*" { capabilities = ["read"] }
       path "denied/*" { capabilities = ["deny"] }
       path "+/team/*" { capabilities = ["list"] }
       path "kv1/x" { capabilities = ["update"] }`,
    ]);
    expect(a.hasMountAccess('secret/')).toBe(true);
    expect(a.hasMountAccess('kv1/')).toBe(true);
    expect(a.hasMountAccess('anything/')).toBe(true);
    const b = acl([
      'path "secret/*" { capabilities = ["read"] }\npath "denied/*" { capabilities = ["deny"] }',
    ]);
    expect(b.hasMountAccess('secret/')).toBe(true);
    expect(b.hasMountAccess('denied/')).toBe(false);
    expect(b.hasMountAccess('other/')).toBe(false);
  });
});
