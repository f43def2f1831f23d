import { refusal } from '../test-support/refusal';
import { roleFrom } from '../test-support/role-fixtures';
import { roleView } from './role.decider';

const refused = (body: Record<string, unknown>, keyExists = true): string =>
  refusal(() => roleFrom(body, keyExists));

describe('ssh role rules', () => {
  it('applies the defaults of each key type', () => {
    expect(roleFrom({ key_type: 'OTP', default_user: 'u', cidr_list: '10.0.0.0/8' })).toMatchObject({
      key_type: 'otp',
      port: 22,
    });
    const dynamic = roleFrom({ key_type: 'dynamic', default_user: 'u', key: 'k', admin_user: 'a' });
    expect(dynamic).toMatchObject({ key_bits: 1024, port: 22 });
    expect(dynamic.install_script).toContain('authorized_keys');
    expect(
      roleFrom({ key_type: 'ca', allow_host_certificates: 'true', ttl: '1h', max_ttl: '2h' }),
    ).toMatchObject({
      ttl: 3600,
      max_ttl: 7200,
      algorithm_signer: '',
      not_before_duration: 30,
    });
  });

  it('refuses what Vault refuses, with its texts', () => {
    expect(refused({})).toBe('missing key type');
    expect(refused({ key_type: 'nope' })).toBe('invalid key type');
    expect(refused({ key_type: 'otp' })).toBe('missing default user');
    expect(refused({ key_type: 'otp', default_user: 'u', admin_user: 'a' })).toBe(
      'admin user not required for OTP type',
    );
    expect(refused({ key_type: 'dynamic', default_user: 'u' })).toBe('missing key name');
    expect(refused({ key_type: 'dynamic', default_user: 'u', key: 'k', admin_user: 'a' }, false)).toBe(
      `invalid 'key': "k"`,
    );
    expect(refused({ key_type: 'dynamic', default_user: 'u', key: 'k' })).toBe('missing admin username');
    expect(
      refused({ key_type: 'dynamic', default_user: 'u', key: 'k', admin_user: 'a', key_bits: 4096 }),
    ).toBe('invalid key_bits field');
    expect(refused({ key_type: 'ca' })).toBe(
      "Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'",
    );
    expect(refused({ key_type: 'ca', allow_user_certificates: true, ttl: '2h', max_ttl: '1h' })).toBe(
      '"ttl" value must be less than "max_ttl" when both are specified',
    );
    expect(refused({ key_type: 'ca', allow_user_certificates: true, algorithm_signer: 'md5' })).toBe(
      'unknown algorithm signer "md5"',
    );
    expect(refused({ key_type: 'ca', allow_user_certificates: true, ttl: -5 })).toBe(
      'ttl must not be negative',
    );
    expect(refused({ key_type: 'otp', default_user: 'u', port: 70000 })).toBe('invalid port');
    expect(refused({ key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/33' })).toBe(
      'failed to validate cidr_list',
    );
    expect(
      refused({ key_type: 'ca', allow_user_certificates: true, allowed_user_key_lengths: { rsa: 'x' } }),
    ).toMatch(/^error processing allowed_user_key_lengths/);
  });

  it('reads back only the fields of the key type', () => {
    const otp = roleView(roleFrom({ key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8' }));
    expect(Object.keys(otp).sort()).toEqual(
      ['allowed_users', 'cidr_list', 'default_user', 'exclude_cidr_list', 'key_type', 'port'].sort(),
    );
    const ca = roleView(
      roleFrom({
        key_type: 'ca',
        allow_user_certificates: true,
        allowed_user_key_lengths: { rsa: [2048, '4096'] },
      }),
    );
    expect(ca).toMatchObject({
      algorithm_signer: 'default',
      allowed_user_key_lengths: { rsa: [2048, 4096] },
    });
    expect(ca).not.toHaveProperty('cidr_list');
  });
});
