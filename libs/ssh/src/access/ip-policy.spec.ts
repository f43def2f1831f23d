import { refusal } from '../test-support/refusal';
import { roleFrom } from '../test-support/role-fixtures';
import { checkIp, credsUsername, parseIp, roleCoversIp } from './ip-policy';

const role = roleFrom({
  key_type: 'otp',
  default_user: 'ops',
  allowed_users: 'ops,deploy',
  cidr_list: '10.0.0.0/8,fd00::/8',
  exclude_cidr_list: '10.9.0.0/16',
});

describe('ssh ip and username rules', () => {
  it('covers the CIDR blocks minus the excluded ones', () => {
    expect(roleCoversIp(role, '10.1.2.3')).toBe(true);
    expect(roleCoversIp(role, 'fd00::1')).toBe(true);
    expect(roleCoversIp(role, '10.9.1.1')).toBe(false);
    expect(roleCoversIp(role, '192.168.1.1')).toBe(false);
    expect(roleCoversIp({ cidr_list: '', exclude_cidr_list: '' }, '10.0.0.1')).toBe(false);
  });
  it('lets zero-address roles take any IP', () => {
    expect(() => checkIp('r', role, '192.168.1.1', ['r'])).not.toThrow();
    expect(refusal(() => checkIp('r', role, '192.168.1.1', []))).toBe(
      'Error validating IP: IP does not belong to role',
    );
  });
  it('parses IPs', () => {
    expect(parseIp('10.0.0.1')).toBe('10.0.0.1');
    expect(refusal(() => parseIp(''))).toBe('Missing ip');
    expect(refusal(() => parseIp('10.0.0.300'))).toBe('Invalid IP "10.0.0.300"');
  });
  it('allows the default user and the listed users only', () => {
    expect(credsUsername('', role)).toBe('ops');
    expect(credsUsername('deploy', role)).toBe('deploy');
    expect(refusal(() => credsUsername('root', role))).toBe('Username is not present is allowed users list');
    expect(credsUsername('anyone', roleFrom({ key_type: 'otp', default_user: 'ops' }))).toBe('anyone');
  });
});
