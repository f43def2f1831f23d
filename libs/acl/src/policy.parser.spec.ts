import { DomainError } from '@coffer/contracts';
import { CAP, DEFAULT_POLICY, PolicyParseError, parsePolicy } from './index';

function parseError(text: string): PolicyParseError {
  try {
    parsePolicy('p', text);
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyParseError);
    return e as PolicyParseError;
  }
  throw new Error('expected a PolicyParseError');
}

describe('parsePolicy', () => {
  it('parses the HCL form', () => {
    const p = parsePolicy(' Dev-Team ', 'path "secret/data/*" {\n  capabilities = ["read", "list"]\n}\n');
    expect(p.name).toBe('dev-team');
    expect(p.templated).toBe(false);
    expect(p.paths).toHaveLength(1);
    expect(p.paths[0]).toMatchObject({
      path: 'secret/data/*',
      capabilities: ['read', 'list'],
      templated: false,
      line: 1,
      column: 1,
      permissions: {
        bitmap: CAP.read | CAP.list,
        minWrappingTtl: 0,
        maxWrappingTtl: 0,
        requiredParameters: [],
      },
    });
  });

  it('parses the JSON form, as an object or a list of objects', () => {
    const a = parsePolicy(
      'p',
      '{"path":{"secret/foo":{"capabilities":["read"]},"secret/bar":{"policy":"write"}}}',
    );
    expect(a.paths.map((x) => [x.path, x.capabilities])).toEqual([
      ['secret/foo', ['read']],
      ['secret/bar', ['create', 'read', 'update', 'delete', 'list']],
    ]);
    const b = parsePolicy('p', '{"path":[{"a":{"capabilities":["list"]}},{"b":{"capabilities":["sudo"]}}]}');
    expect(b.paths.map((x) => x.path)).toEqual(['a', 'b']);
    const c = parsePolicy(
      'p',
      '{\n  "path": {\n    "x": {\n      "allowed_parameters": {"Foo": ["a", 1, true]},\n      "capabilities": ["update"]\n    }\n  }\n}',
    );
    expect(c.paths[0]?.permissions.allowedParameters).toEqual(new Map([['foo', ['a', 1, true]]]));
    expect(c.paths[0]).toMatchObject({ line: 3, column: 5 });
  });

  it.each(['create', 'read', 'update', 'patch', 'delete', 'list', 'sudo', 'subscribe', 'recover'] as const)(
    'accepts the %s capability',
    (cap) => {
      const p = parsePolicy('p', `path "x" { capabilities = ["${cap}"] }`);
      expect(p.paths[0]?.capabilities).toEqual([cap]);
      expect(p.paths[0]?.permissions.bitmap).toBe(CAP[cap]);
    },
  );

  it('keeps deny alone and drops everything else in a denying stanza (as Vault)', () => {
    const p = parsePolicy(
      'p',
      'path "x" {\n capabilities = ["read", "deny", "bogus"]\n allowed_parameters = { a = [] }\n}',
    );
    expect(p.paths[0]?.capabilities).toEqual(['deny']);
    expect(p.paths[0]?.permissions).toEqual({
      bitmap: CAP.deny,
      minWrappingTtl: 0,
      maxWrappingTtl: 0,
      requiredParameters: [],
      subscribeEventTypes: [],
    });
  });

  it.each([
    ['deny', ['deny']],
    ['read', ['read', 'list']],
    ['write', ['create', 'read', 'update', 'delete', 'list']],
    ['sudo', ['create', 'read', 'update', 'delete', 'list', 'sudo']],
  ])('maps the legacy policy = "%s" shorthand', (legacy, caps) => {
    const p = parsePolicy('p', `path "x" { policy = "${legacy}" }`);
    expect(p.paths[0]?.capabilities).toEqual(caps);
  });

  it('adds legacy capabilities to explicit ones', () => {
    const p = parsePolicy('p', 'path "x" {\n policy = "read"\n capabilities = ["patch"]\n}');
    expect(p.paths[0]?.capabilities).toEqual(['read', 'list', 'patch']);
  });

  it('parses parameter constraints, lower-casing keys', () => {
    const p = parsePolicy(
      'p',
      `path "secret/restricted" {
        capabilities = ["create"]
        required_parameters = ["name", "id"]
        allowed_parameters = { "Foo" = [], "bar" = ["zip", "zap"], "*" = [] }
        denied_parameters { token_policies = [] }
        min_wrapping_ttl = "1s"
        max_wrapping_ttl = 90
        subscribe_event_types = ["kv*"]
        comment = "why"
      }`,
    );
    const perms = p.paths[0]?.permissions;
    expect(perms?.requiredParameters).toEqual(['name', 'id']);
    expect(perms?.allowedParameters).toEqual(
      new Map<string, unknown[]>([
        ['foo', []],
        ['bar', ['zip', 'zap']],
        ['*', []],
      ]),
    );
    expect(perms?.deniedParameters).toEqual(new Map([['token_policies', []]]));
    expect([perms?.minWrappingTtl, perms?.maxWrappingTtl]).toEqual([1, 90]);
    expect(perms?.subscribeEventTypes).toEqual(['kv*']);
  });

  it('accepts sub-second and day wrapping TTLs', () => {
    const p = parsePolicy(
      'p',
      'path "x" {\n capabilities = ["read"]\n min_wrapping_ttl = "500ms"\n max_wrapping_ttl = "1d"\n}',
    );
    expect([p.paths[0]?.permissions.minWrappingTtl, p.paths[0]?.permissions.maxWrappingTtl]).toEqual([
      0.5, 86400,
    ]);
  });

  it('flags templated paths and strips nothing at parse time', () => {
    const p = parsePolicy('p', 'path "/secret/{{identity.entity.id}}/*" { capabilities = ["read"] }');
    expect(p.templated).toBe(true);
    expect(p.paths[0]).toMatchObject({ path: '/secret/{{identity.entity.id}}/*', templated: true });
  });

  it('records the namespace', () => {
    expect(parsePolicy('p', 'path "x" {}', { namespace: 'ns1/' }).namespace).toBe('ns1/');
  });

  it('accepts empty policies and the top-level name key', () => {
    expect(parsePolicy('p', '').paths).toEqual([]);
    expect(parsePolicy('p', 'name = "ignored"\n').paths).toEqual([]);
    expect(parsePolicy('p', '{}').paths).toEqual([]);
  });

  it('parses the default policy', () => {
    const p = parsePolicy('default', DEFAULT_POLICY);
    expect(p.templated).toBe(true);
    expect(p.paths.map((x) => x.path)).toEqual(
      expect.arrayContaining([
        'auth/token/lookup-self',
        'cubbyhole/*',
        'sys/tools/hash',
        'sys/wrapping/unwrap',
      ]),
    );
  });

  describe('errors', () => {
    it('is an invalid_request DomainError', () => {
      const e = parseError('path "x" { capabilities = ["bogus"] }');
      expect(e).toBeInstanceOf(DomainError);
      expect(e.code).toBe('invalid_request');
    });

    it.each([
      [
        'path "x" {\n  capabilities = ["read"\n}',
        3,
        1,
        "failed to parse policy: At 3:1: expected ',' or ']' after list element, found '}'",
      ],
      ['path "x" { capabilities = "read }', 1, 27, 'failed to parse policy: At 1:27: unterminated string'],
      [
        '{"path": {"x": {"capabilities": ["read",]}}}',
        1,
        41,
        "failed to parse policy: At 1:41: expected a JSON value, found ']'",
      ],
      [
        'path "x" {\n  capabilities = ["read", "bogus"]\n}',
        2,
        3,
        'failed to parse policy: path "x": invalid capability "bogus"',
      ],
      ['path "x" { policy = "admin" }', 1, 12, 'failed to parse policy: path "x": invalid policy "admin"'],
      [
        'path "x" {\n  capabilities = ["read"]\n  capabilites = []\n  foo = 1\n}',
        3,
        3,
        'failed to parse policy: 2 errors occurred:\n\t* path "x": invalid key "capabilites" on line 3\n\t* path "x": invalid key "foo" on line 4\n\n',
      ],
      ['\nfoo = 1', 2, 1, 'failed to parse policy: 1 error occurred:\n\t* invalid key "foo" on line 2\n\n'],
      [
        'path "x/+*" { capabilities = ["read"] }',
        1,
        1,
        'failed to parse policy: path "x/+*": invalid use of wildcards (\'+*\' is forbidden)',
      ],
      [
        'path "x/{{identity.entity.id" {}',
        1,
        1,
        'failed to parse policy: failed to validate policy templating: unbalanced templating characters',
      ],
      [
        'path "x" {\n min_wrapping_ttl = "soon"\n}',
        2,
        2,
        'failed to parse policy: error parsing min_wrapping_ttl: time: invalid duration "soon"',
      ],
      [
        'path "x" {\n capabilities = ["read"]\n min_wrapping_ttl = "10s"\n max_wrapping_ttl = "5s"\n}',
        4,
        2,
        'failed to parse policy: max_wrapping_ttl cannot be less than min_wrapping_ttl',
      ],
      [
        'path "x" {\n capabilities = [1]\n}',
        2,
        18,
        'failed to parse policy: path "x": capabilities must be a list of strings',
      ],
      [
        'path "x" {\n allowed_parameters = { "a*" = [] }\n}',
        2,
        25,
        'failed to parse policy: path "x": allowed_parameters: parameter key "a*" cannot contain non-tail wildcards',
      ],
      [
        'path "x" {\n denied_parameters = { "/data/pw" = [] }\n}',
        2,
        24,
        'failed to parse policy: path "x": denied_parameters: parameter key "/data/pw": JSON pointer parameter keys are not supported',
      ],
      [
        'path "x" {\n allowed_parameters = { a = "b" }\n}',
        2,
        25,
        'failed to parse policy: path "x": allowed_parameters: the values of "a" must be a list ([] for any value)',
      ],
      [
        'path "x" {\n required_parameters = ["*"]\n}',
        2,
        2,
        'failed to parse policy: path "x": required_parameters: parameter key "*": wildcard is not permitted here',
      ],
      [
        'path "x" {\n control_group = {}\n}',
        2,
        2,
        'failed to parse policy: path "x": control_group is a Vault Enterprise feature and is not supported',
      ],
      [
        'path "x" {\n mfa_methods = ["m"]\n}',
        2,
        2,
        'failed to parse policy: path "x": mfa_methods is a Vault Enterprise feature and is not supported',
      ],
      [
        'path "x" {\n capabilities = ["read"]\n capabilities = ["list"]\n}',
        3,
        2,
        'failed to parse policy: path "x": duplicate key "capabilities" on line 3',
      ],
      [
        'path {}',
        1,
        1,
        'failed to parse policy: a path block needs exactly one label, the path: path "secret/*" { ... }',
      ],
      ['{"path": {"x": ["read"]}}', 1, 11, 'failed to parse policy: path "x": rules must be an object'],
      ['{"path": "x"}', 1, 10, 'failed to parse policy: "path" must map paths to rule objects'],
      ['path "x" { comment = 1 }', 1, 12, 'failed to parse policy: path "x": comment must be a string'],
    ])('%j', (text, line, column, message) => {
      const e = parseError(text);
      expect(e.message).toBe(message);
      expect([e.line, e.column]).toEqual([line, column]);
    });
  });
});
