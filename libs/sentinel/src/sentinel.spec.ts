import { compileSentinel, SentinelParseError, type SentinelInput } from './index';

const NOW = new Date('2026-11-24T14:30:00Z'); // a Tuesday
const input = (over: Partial<SentinelInput> = {}): SentinelInput => ({
  now: NOW,
  request: {
    path: 'secret/data/app',
    operation: 'read',
    data: { ttl: '1h', count: 3, tags: ['a', 'b'] },
    connection: { remote_addr: '10.20.1.7' },
  },
  token: { policies: ['default', 'dev'], type: 'service', metadata: { team: 'ops' }, ttl: 3600 },
  identity: { entity: { name: 'alice', metadata: {} }, groups: { by_name: { admins: { id: 'g1' } } } },
  ...over,
});

const run = (source: string, over?: Partial<SentinelInput>) => compileSentinel(source).evaluate(input(over));
const passes = (expr: string, over?: Partial<SentinelInput>, prelude = ''): boolean => {
  const r = run(`${prelude}\nmain = rule { ${expr} }`, over);
  if (r.error) throw new Error(r.error);
  return r.passed;
};

describe('sentinel subset: expressions', () => {
  it.each([
    ['true and not false', true],
    ['true xor true', false],
    ['false or 1 < 2', true],
    ['"a" is "a" and "a" is not "b"', true],
    ['1 == 1.0 and 2 != 3', true],
    ['3 >= 3 and 2 <= 1', false],
    ['"abc" < "abd"', true],
    ['[1, 2] contains 2 and [1, 2] not contains 3', true],
    ['"x" in ["x", "y"] and "z" not in ["x"]', true],
    ['{"a": 1} contains "a"', true],
    ['"hello" contains "ell"', true],
    ['"secret/data/app" matches "^secret/data/"', true],
    ['"abc" not matches "^x"', true],
    ['1 + 2 * 3 == 7 and 7 / 2 == 3 and 7 % 4 == 3 and -1 < 0', true],
    ['"a" + "b" == "ab" and [1] + [2] == [1, 2]', true],
    ['all [1, 2, 3] as x { x > 0 }', true],
    ['any [1, 2, 3] as x { x > 2 }', true],
    ['all [] as x { false }', true],
    ['any [] as x { true }', false],
    ['all {"a": 1, "b": 2} as k, v { v > 0 and k in ["a", "b"] }', true],
    ['any {"a": 1} as k { k is "a" }', true],
    ['length("abc") == 3 and length([1]) == 1 and length({"a": 1}) == 1', true],
    ['keys({"a": 1}) == ["a"] and values({"a": 1}) == [1]', true],
    ['int("42") == 42 and string(5) == "5" and float("1.5") == 1.5', true],
    ['(request.data.missing else "d") is "d"', true],
    ['(request.data.count else 0) is 3', true],
    ['request.data.missing else true', true],
  ])('%s', (expr, expected) => {
    expect(passes(expr)).toBe(expected);
  });

  it('reads the data model with Vault names', () => {
    expect(passes('request.path is "secret/data/app" and request.operation is "read"')).toBe(true);
    expect(passes('"dev" in token.policies and token.metadata.team is "ops"')).toBe(true);
    expect(passes('identity.entity.name is "alice" and identity.groups.by_name contains "admins"')).toBe(
      true,
    );
    expect(passes('request.data["tags"][1] is "b" and request.data.tags[-1] is "b"')).toBe(true);
  });

  it('an undefined main fails, and mfa is absent', () => {
    const r = run('main = rule { mfa.methods.ping.valid }');
    expect(r.passed).toBe(false);
    expect(r.error).toBe('main evaluated to undefined');
  });

  it('a runtime error fails the policy with its position', () => {
    const r = run('main = rule {\n  request.path > 3\n}');
    expect(r).toMatchObject({ passed: false, error: expect.stringContaining('line 2, column 16') });
  });

  it('rule when: a false condition passes', () => {
    const src = 'main = rule when request.operation is "update" { false }';
    expect(run(src).passed).toBe(true);
    expect(run(src, { request: { operation: 'update' } }).passed).toBe(false);
  });

  it('named rules are traced, main last', () => {
    const r = run('a = rule { true }\nb = rule { false }\nmain = rule { a and b }');
    expect(r.passed).toBe(false);
    expect(r.rules.map((x) => [x.name, x.value])).toEqual([
      ['a', true],
      ['b', false],
      ['main', false],
    ]);
  });

  it('imports: time, strings, sockaddr', () => {
    const src = `
      import "time"
      import "strings"
      import "sockaddr"
      main = rule {
        time.now.hour is 14 and time.now.weekday_name is "Tuesday" and time.now.weekday is 2 and
        time.load("2026-01-01T00:00:00Z").unix < time.now.unix and
        strings.has_prefix(request.path, "secret/") and strings.to_upper("a") is "A" and
        sockaddr.is_contained("10.20.0.0/16", request.connection.remote_addr) and
        sockaddr.is_contained(request.connection.remote_addr, "10.20.0.0/16") and
        not sockaddr.is_contained("192.168.0.0/16", request.connection.remote_addr) and
        sockaddr.is_contained("127.0.0.0/8", "::ffff:127.0.0.1")
      }`;
    expect(run(src)).toEqual({
      passed: true,
      rules: [expect.objectContaining({ name: 'main', value: true })],
    });
  });

  it.each([
    ['"10.0.0.0/9"', '"10.127.255.255"', true],
    ['"10.0.0.0/9"', '"10.128.0.0"', false],
    ['"10.0.0.0/8"', '"::ffff:10.1.2.3"', true],
    ['"2001:db8::/32"', '"2001:db8::1"', true],
    ['"2001:db8::/32"', '"2001:db9::1"', false],
    ['"::1/128"', '"::1"', true],
    ['"fe80::/10"', '"febf:ffff::1"', true],
    ['"fe80::/10"', '"fec0::1"', false],
    ['"::ffff:0:0/96"', '"::ffff:192.0.2.1"', false], // read as IPv4, so not in a v6 network
    ['"10.0.0.0/8"', '"10.0.0.0/16"', true],
    ['"10.0.0.0/16"', '"10.0.0.0/8"', false],
    ['"10.0.0.0/8"', '"2001:db8::1"', false],
  ])('sockaddr.is_contained(%s, %s) is %s', (net, addr, expected) => {
    expect(passes(`sockaddr.is_contained(${net}, ${addr})`, undefined, 'import "sockaddr"')).toBe(expected);
  });

  it('sockaddr refuses what is not an address', () => {
    const r = run('import "sockaddr"\nmain = rule { sockaddr.is_contained("10.0.0.0/8", "nope") }');
    expect(r).toMatchObject({
      passed: false,
      error: expect.stringContaining('is not an IP address or CIDR'),
    });
  });

  it('data keys named like prototype members are data', () => {
    expect(passes('(request.data["__proto__"] else "none") is "none"')).toBe(true);
    expect(passes('(request.data.constructor else "none") is "none"')).toBe(true);
  });

  it('reports which globals a policy reads', () => {
    const p = compileSentinel('main = rule { token.ttl > 0 }');
    expect(p.uses('token')).toBe(true);
    expect(p.uses('identity')).toBe(false);
  });
});

describe('sentinel subset: parse errors carry line and column', () => {
  it.each([
    ['main = rule {\n  true and\n}', 3, 1, 'unexpected "}"'],
    ['main = rule { "open }', 1, 15, 'unterminated string'],
    ['import "http"\nmain = rule { true }', 1, 8, 'unknown import "http"'],
    ['x = 1', 1, 1, 'no "main" rule'],
    ['main = rule { nothing }', 1, 15, 'unknown name "nothing"'],
    ['main = rule { true }\nmain = rule { false }', 2, 1, 'assigned twice'],
    ['main = rule { 1 $ 2 }', 1, 17, 'unexpected character "$"'],
    ['main = rule { all [1] x { true } }', 1, 23, 'expected "as"'],
  ])('%j', (source, line, column, reason) => {
    let error: unknown;
    try {
      compileSentinel(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SentinelParseError);
    expect(error).toMatchObject({ line, column });
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).toContain(`line ${line}, column ${column}`);
  });
});
