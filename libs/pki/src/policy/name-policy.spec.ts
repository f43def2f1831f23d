import {
  firstDeniedName,
  glob,
  isValidHostname,
  otherSanViolation,
  parseOtherSans,
  type NamePolicy,
} from './name-policy';

const base: NamePolicy = {
  allow_localhost: true,
  allowed_domains: [],
  allow_bare_domains: false,
  allow_subdomains: false,
  allow_glob_domains: false,
  allow_wildcard_certificates: true,
  allow_any_name: false,
  enforce_hostnames: true,
  allow_token_displayname: false,
};
const role = (over: Partial<NamePolicy>): NamePolicy => ({ ...base, ...over });
const allowed = (policy: NamePolicy, name: string): boolean => firstDeniedName(policy, [name]) === undefined;

describe('name policy (Vault validateNames)', () => {
  const sub = role({ allowed_domains: ['example.com'], allow_subdomains: true });
  const bare = role({ allowed_domains: ['example.com'], allow_bare_domains: true });
  const globbed = role({
    allowed_domains: ['*.svc.example.com', 'web-*.example.org'],
    allow_glob_domains: true,
  });

  it.each([
    [sub, 'www.example.com', true],
    [sub, 'a.b.example.com', true],
    [sub, '*.example.com', true],
    [sub, 'example.com', false],
    [sub, 'evil-example.com', false],
    [sub, 'user@mail.example.com', true],
    [sub, '*@example.com', false],
    [bare, 'example.com', true],
    [bare, 'EXAMPLE.COM', false], // uppercase fails the host-name rule first
    [bare, 'user@example.com', true],
    [bare, 'www.example.com', false],
    [globbed, 'a.svc.example.com', true],
    [globbed, 'web-1.example.org', true],
    [globbed, 'api.example.org', false],
    [base, 'localhost', true],
    [base, 'localdomain', true],
    [base, 'foo.localhost', false],
    [role({ allow_subdomains: true }), 'foo.localhost', true],
    [role({ allow_localhost: false }), 'localhost', false],
    [role({ allow_any_name: true }), 'anything.test', true],
    [role({ allow_any_name: true }), 'bad_name!', false],
    [role({ allow_any_name: true, enforce_hostnames: false }), 'bad_name!', true],
  ])('case %#', (policy, name, expected) => {
    expect(allowed(policy, name)).toBe(expected);
  });

  it('denies wildcards when the role forbids them', () => {
    const noWild = role({
      allowed_domains: ['example.com'],
      allow_subdomains: true,
      allow_wildcard_certificates: false,
    });
    expect(allowed(noWild, '*.example.com')).toBe(false);
    expect(allowed(noWild, 'a.example.com')).toBe(true);
  });

  it('returns the first offending name of a request', () => {
    expect(firstDeniedName(sub, ['a.example.com', 'b.other.com', 'c.other.com'])).toBe('b.other.com');
    expect(firstDeniedName(sub, ['a.example.com'])).toBeUndefined();
  });

  it.each([
    ['a\u0000b.example.com', false],
    ['Upper.example.com', false],
    ['trailing.example.com.', true],
    ['bücher.example.com', false],
    ['xn--bcher-kva.example.com', false],
    [`${'a'.repeat(64)}.example.com`, false],
    [`${'abcdefghi.'.repeat(30)}com`, false],
    ['-lead.example.com', false],
    ['ok-host.example.com', true],
  ])('host name %j valid: %s', (name, expected) => {
    expect(isValidHostname(name)).toBe(expected);
  });

  it('keeps a trailing-dot name from matching a subdomain rule', () => {
    expect(allowed(sub, 'www.example.com.')).toBe(false);
  });

  it('globs like go-glob', () => {
    expect(glob('spiffe://example/*', 'spiffe://example/a/b')).toBe(true);
    expect(glob('a*c*e', 'abcde')).toBe(true);
    expect(glob('a*c', 'ab')).toBe(false);
    expect(glob('*', '')).toBe(true);
  });

  it('checks other SANs against allowed_other_sans', () => {
    const requested = parseOtherSans(['1.3.6.1.4.1.311.20.2.3;UTF8:devops@example.com']);
    expect(otherSanViolation(['*'], requested)).toBeUndefined();
    expect(otherSanViolation(['1.3.6.1.4.1.311.20.2.3;utf-8:*@example.com'], requested)).toBeUndefined();
    expect(otherSanViolation(['1.3.6.1.4.1.311.20.2.3;UTF8:x'], requested)).toBe(
      'other SAN devops@example.com not allowed for OID 1.3.6.1.4.1.311.20.2.3 by this role',
    );
    expect(otherSanViolation([], requested)).toBe(
      'other SAN OID 1.3.6.1.4.1.311.20.2.3 not allowed by this role',
    );
    expect(() => parseOtherSans(['1.2.3:UTF8:x'])).toThrow('expected a semicolon');
    expect(() => parseOtherSans(['1.2.3;IA5:x'])).toThrow('only utf8 other SANs are supported');
  });
});
