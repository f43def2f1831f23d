import type { MountInfo } from '@coffer/contracts';
import { directoryConfigBodySchema } from '@coffer/contracts/directory';
import type { ConfigState } from '../records/record.state';
import { mergeConfig } from './config.rules';

const mount = { config: { default_lease_ttl: 0, max_lease_ttl: 0 } } as MountInfo;
const base = { binddn: 'cn=admin', bindpass: 'secret' };
/** a write as the contract parses it */
const merge = (body: Record<string, unknown>, existing?: ConfigState) =>
  mergeConfig(directoryConfigBodySchema.parse(body), existing, mount);

describe('directory config rules', () => {
  it("fills Vault's defaults", () => {
    const { connection, passwords, bindpass } = merge(base);
    expect(connection).toMatchObject({
      url: 'ldap://127.0.0.1',
      schema: 'ad',
      userattr: 'userPrincipalName',
      tls_min_version: 'tls12',
      tls_max_version: 'tls12',
      request_timeout: 90,
      connection_timeout: 30,
      starttls: false,
      insecure_tls: false,
    });
    expect(passwords).toEqual({
      ttl: 2_764_800,
      max_ttl: 2_764_800,
      length: 64,
      formatter: '',
      password_policy: '',
      last_rotation_tolerance: 5,
    });
    expect(bindpass).toBe('secret');
  });

  it('keeps what a write does not send (the bind password too), lower-cases urls', () => {
    const first = merge({ ...base, url: 'LDAP://Dc1:389', schema: 'openldap' });
    const existing: ConfigState = {
      kind: 'config',
      connection: first.connection,
      passwords: first.passwords,
      password: { current: 'secret', last: null, pending: null, last_rotation: null },
    };
    const second = merge({ userdn: 'ou=people' }, existing);
    expect(second.connection).toMatchObject({
      url: 'ldap://dc1:389',
      schema: 'openldap',
      userattr: 'cn',
      binddn: 'cn=admin',
      userdn: 'ou=people',
    });
    expect(second.bindpass).toBeUndefined();
  });

  it('refuses with the texts of Vault', () => {
    expect(() => merge({ bindpass: 'x' })).toThrow('"binddn" is required');
    expect(() => merge({ binddn: 'x' })).toThrow('"bindpass" is required');
    expect(() => merge({ ...base, url: 'http://dc1' })).toThrow('invalid LDAP url "http://dc1"');
    expect(() => merge({ ...base, tls_min_version: 'tls13', tls_max_version: 'tls12' })).toThrow(
      "'tls_max_version' must be greater than or equal to 'tls_min_version'",
    );
    expect(() => merge({ ...base, ttl: 10, max_ttl: 5 })).toThrow(
      'ttl must be smaller than or equal to max_ttl',
    );
    expect(() => merge({ ...base, password_policy: 'p', formatter: 'a{{PASSWORD}}' })).toThrow(
      'cannot set password_policy and either length or formatter',
    );
    expect(merge({ ...base, password_policy: 'p' }).passwords.length).toBe(0);
  });
});
