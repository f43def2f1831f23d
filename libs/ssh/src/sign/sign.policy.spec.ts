import { refusal } from '../test-support/refusal';
import { caRole } from '../test-support/role-fixtures';
import {
  certificateTtl,
  certificateType,
  checkKeyRequirements,
  criticalOptions,
  extensions,
  keyId,
  renderAllowedList,
  signatureAlgorithm,
  validPrincipals,
} from './sign.policy';

const mount = { config: { default_lease_ttl: 0, max_lease_ttl: 0 } };

describe('certificate type', () => {
  it('allows only what the role allows, user or host', () => {
    expect(certificateType('user', caRole())).toBe('user');
    expect(refusal(() => certificateType('host', caRole()))).toBe("cert_type 'host' is not allowed by role");
    expect(refusal(() => certificateType('other', caRole()))).toBe(
      "cert_type must be either 'user' or 'host'",
    );
  });
});

describe('key id', () => {
  const vars = { displayName: 'token-x', roleName: 'dev', publicKeyHash: 'abc' };
  it('uses the token display name and key hash unless the role formats it', () => {
    expect(keyId('', caRole(), vars)).toBe('vault-token-x-abc');
    expect(keyId('', caRole(), { ...vars, displayName: '' })).toBe('vault-abc');
    expect(
      keyId('', caRole({ key_id_format: '{{role_name}}:{{token_display_name}}:{{public_key_hash}}' }), vars),
    ).toBe('dev:token-x:abc');
  });
  it('takes key_id only when the role allows user key ids', () => {
    expect(refusal(() => keyId('mine', caRole(), vars))).toBe('setting key_id is not allowed by role');
    expect(keyId('mine', caRole({ allow_user_key_ids: true }), vars)).toBe('mine');
  });
});

describe('valid principals', () => {
  const users = caRole({ allowed_users: 'alice,bob', default_user: 'alice' });
  const allowed = ['alice', 'bob'];
  it('checks user principals against allowed_users, defaulting to default_user', () => {
    expect(validPrincipals(undefined, users, 'user', allowed)).toEqual(['alice']);
    expect(validPrincipals('bob, alice,bob', users, 'user', allowed)).toEqual(['bob', 'alice']);
    expect(refusal(() => validPrincipals('eve', users, 'user', allowed))).toBe(
      'eve is not a valid value for valid_principals',
    );
    expect(validPrincipals('anyone', caRole({ allowed_users: '*' }), 'user', ['*'])).toEqual(['anyone']);
  });
  it('refuses empty principals unless the role allows them, and any principal for an empty list', () => {
    expect(refusal(() => validPrincipals('', caRole(), 'user', []))).toBe(
      'empty valid principals not allowed by role',
    );
    expect(validPrincipals('', caRole({ allow_empty_principals: true }), 'user', [])).toEqual([]);
    expect(refusal(() => validPrincipals('a', caRole(), 'user', []))).toBe(
      'role is not configured to allow any principals',
    );
  });
  it('applies the bare-domain and subdomain rules to host principals', () => {
    const base = { key_type: 'ca', allow_host_certificates: true, allowed_domains: 'example.com' };
    const bare = caRole({ ...base, allow_bare_domains: true });
    const sub = caRole({ ...base, allow_subdomains: true });
    expect(validPrincipals('example.com', bare, 'host', ['example.com'])).toEqual(['example.com']);
    expect(refusal(() => validPrincipals('a.example.com', bare, 'host', ['example.com']))).toMatch(
      /not a valid value/,
    );
    expect(validPrincipals('a.b.example.com', sub, 'host', ['example.com'])).toEqual(['a.b.example.com']);
    expect(refusal(() => validPrincipals('example.com', sub, 'host', ['example.com']))).toMatch(
      /not a valid value/,
    );
    expect(refusal(() => validPrincipals('badexample.com', sub, 'host', ['example.com']))).toMatch(
      /not a valid value/,
    );
  });
});

describe('templated allowed users', () => {
  it('renders each entry alone and refuses a rendered comma (no principal injection)', () => {
    const render = (entry: string) => (entry === '{{identity.entity.name}}' ? 'alice' : 'x,root');
    expect(renderAllowedList('ops,{{identity.entity.name}}', true, render)).toEqual(['ops', 'alice']);
    expect(refusal(() => renderAllowedList('{{identity.entity.metadata.login}}', true, render))).toMatch(
      /not a single principal/,
    );
    expect(renderAllowedList('{{identity.entity.name}}', true, () => undefined)).toEqual([]);
    expect(renderAllowedList('{{identity.entity.name}}', false, render)).toEqual([
      '{{identity.entity.name}}',
    ]);
  });
});

describe('ttl', () => {
  it('defaults to the role, then the mount, and refuses a requested ttl above max_ttl', () => {
    expect(certificateTtl(undefined, caRole({ ttl: '1h' }), mount)).toBe(3600);
    expect(certificateTtl(undefined, caRole(), { config: { default_lease_ttl: 60, max_lease_ttl: 0 } })).toBe(
      60,
    );
    expect(certificateTtl(undefined, caRole({ max_ttl: '10m' }), mount)).toBe(600);
    expect(refusal(() => certificateTtl(-5, caRole(), mount))).toBe('ttl must not be negative');
    expect(refusal(() => certificateTtl(7200, caRole({ max_ttl: '1h' }), mount))).toBe(
      'ttl is larger than maximum allowed 3600',
    );
  });
});

describe('critical options and extensions', () => {
  it('applies the defaults when none are requested, unchecked', () => {
    const role = caRole({
      default_critical_options: { 'force-command': 'ls' },
      default_extensions: { 'permit-pty': '' },
    });
    expect(criticalOptions({}, role)).toEqual({ 'force-command': 'ls' });
    expect(extensions({}, role)).toEqual({ 'permit-pty': '' });
  });
  it('checks requested ones against the allowed lists', () => {
    expect(criticalOptions({ a: '1' }, caRole())).toEqual({ a: '1' });
    expect(refusal(() => criticalOptions({ a: '1', b: '' }, caRole({ allowed_critical_options: 'a' })))).toBe(
      'critical options not on allowed list: [b]',
    );
    expect(refusal(() => extensions({ 'permit-pty': '' }, caRole()))).toBe(
      'extensions [permit-pty] are not on allowed list',
    );
    expect(extensions({ x: '' }, caRole({ allowed_extensions: '*' }))).toEqual({ x: '' });
    expect(
      extensions({ 'permit-pty': '' }, caRole({ allowed_extensions: 'permit-pty,permit-X11-forwarding' })),
    ).toEqual({
      'permit-pty': '',
    });
  });
});

describe('allowed_user_key_lengths', () => {
  const role = caRole({
    allowed_user_key_lengths: { rsa: [2048, 4096], ed25519: 0, 'ecdsa-sha2-nistp384': 0 },
  });
  it('accepts listed types and sizes', () => {
    expect(() => checkKeyRequirements({ family: 'rsa', bits: 4096 }, role)).not.toThrow();
    expect(() => checkKeyRequirements({ family: 'ed25519', bits: 256 }, role)).not.toThrow();
    expect(() => checkKeyRequirements({ family: 'ecdsa', bits: 384 }, role)).not.toThrow();
  });
  it('refuses other types and sizes', () => {
    expect(refusal(() => checkKeyRequirements({ family: 'rsa', bits: 1024 }, role))).toBe(
      'public_key failed to meet the key requirements: key is of an invalid size: 1024',
    );
    expect(refusal(() => checkKeyRequirements({ family: 'ecdsa', bits: 256 }, role))).toBe(
      'public_key failed to meet the key requirements: key of type ecdsa is not allowed',
    );
    expect(() => checkKeyRequirements({ family: 'dsa', bits: 1024 }, caRole())).not.toThrow();
  });
});

describe('algorithm_signer', () => {
  it('defaults to rsa-sha2-256 for RSA CAs and must be blank for others', () => {
    expect(signatureAlgorithm(caRole(), true)).toBe('rsa-sha2-256');
    expect(signatureAlgorithm(caRole(), false)).toBeUndefined();
    expect(signatureAlgorithm(caRole({ algorithm_signer: 'rsa-sha2-512' }), true)).toBe('rsa-sha2-512');
    expect(refusal(() => signatureAlgorithm(caRole({ algorithm_signer: 'ssh-rsa' }), false))).toMatch(
      /needs an RSA CA key/,
    );
  });
});
