import { CLOUD_B_EVENT_TYPES } from '../records/cloud-b-record.events';
import { evolveCloudB, cloudBPendingSince } from '../records/cloud-b-record.state';
import { iamUserName, federationName, sessionName, TRUNCATED_NAME_WARNING } from '../creds/cloud-b-names';
import {
  credentialTypeFor,
  EMPTY_ROLE,
  roleArnFor,
  RoleRefusal,
  stsTtl,
  upgradeLegacyPolicy,
  writeRole,
} from './cloud-b-role.rules';

const body = (b: Record<string, unknown>) => b as Parameters<typeof writeRole>[1];

describe('cloud-b role rules (Vault path_roles.go)', () => {
  it('upgrades legacy entries: role ARN, policy ARN, document, or invalid_data', () => {
    expect(upgradeLegacyPolicy('arn:aws:iam::1:role/r')).toMatchObject({
      credential_types: ['assumed_role'],
      role_arns: ['arn:aws:iam::1:role/r'],
      prohibit_flexible_cred_path: true,
    });
    expect(upgradeLegacyPolicy('arn:aws:iam::aws:policy/P')).toMatchObject({
      credential_types: ['iam_user'],
      policy_arns: ['arn:aws:iam::aws:policy/P'],
    });
    expect(upgradeLegacyPolicy('{ "a": 1 }')).toMatchObject({
      credential_types: ['iam_user', 'federation_token'],
      policy_document: '{"a":1}',
    });
    expect(upgradeLegacyPolicy('arn:broken').invalid_data).toBe('arn:broken');
    expect(upgradeLegacyPolicy('not json').invalid_data).toBe('not json');
  });

  it('reads a v1 role event (the stored legacy string) through the upgrade', () => {
    const [prior] = CLOUD_B_EVENT_TYPES.roleWritten.priors ?? [];
    expect(prior?.version).toBe(1);
    expect(prior?.upcast({ policy: '{{' })).toMatchObject({ invalid_data: '{{', credential_types: [] });
  });

  it('merges a write into the stored role and validates the result', () => {
    const role = writeRole(
      undefined,
      body({ credential_type: 'iam_user', policy_arns: ['arn:aws:iam::aws:policy/A'] }),
    );
    expect(typeof role).toBe('object');
    const again = writeRole(role as typeof EMPTY_ROLE, body({ iam_groups: ['g'] }));
    expect(again).toMatchObject({
      credential_types: ['iam_user'],
      policy_arns: ['arn:aws:iam::aws:policy/A'],
      iam_groups: ['g'],
    });
    const bad = writeRole(
      undefined,
      body({ credential_type: 'iam_user', policy_arns: ['x'], max_sts_ttl: 5, user_path: 'x' }),
    );
    expect(bad).toBe(
      'error(s) validating supplied role data: ' +
        JSON.stringify(
          '2 errors occurred:\n\t* max_sts_ttl parameter only valid for assumed_role and federation_token credential types\n' +
            '\t* The specified value for user_path is invalid. It must match "^\\/([\\x21-\\x7F]{0,510}\\/)?$" regexp\n\n',
        ),
    );
  });

  it('picks the credential type by path for two-type legacy roles and refuses the wrong path', () => {
    const legacy = upgradeLegacyPolicy('{}');
    expect(credentialTypeFor(legacy, 'r', 'creds')).toBe('iam_user');
    expect(credentialTypeFor(legacy, 'r', 'sts')).toBe('federation_token');
    const arnRole = upgradeLegacyPolicy('arn:aws:iam::1:role/r');
    expect(() => credentialTypeFor(arnRole, 'r', 'creds')).toThrow(RoleRefusal);
    expect(() => credentialTypeFor(EMPTY_ROLE, 'r', 'creds')).toThrow(
      'did not find a valid credential_type for role "r"',
    );
  });

  it('chooses the role ARN and the STS ttl', () => {
    const role = { ...EMPTY_ROLE, role_arns: ['a', 'b'] };
    expect(() => roleArnFor(role, 'r', '')).toThrow(
      'did not supply a role_arn parameter and unable to determine one',
    );
    expect(roleArnFor(role, 'r', 'b')).toBe('b');
    expect(roleArnFor({ ...role, role_arns: ['a'] }, 'r', '')).toBe('a');
    expect(stsTtl(EMPTY_ROLE, undefined, 0)).toBe(3600);
    expect(stsTtl({ ...EMPTY_ROLE, default_sts_ttl: 900 }, undefined, 0)).toBe(900);
    expect(stsTtl({ ...EMPTY_ROLE, max_sts_ttl: 1000 }, 5000, 0)).toBe(1000);
    expect(stsTtl(EMPTY_ROLE, 99999, 7200)).toBe(7200);
  });
});

describe('cloud-b names', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('IAM user names keep the time and random suffix within 64 characters', () => {
    expect(iamUserName('token', 'role', now).name).toMatch(/^vault-token-role-1767225600-[A-Za-z0-9]{12}$/);
    const long = iamUserName('d'.repeat(50), 'r'.repeat(50), now);
    expect(long.name).toHaveLength(64);
    expect(long.name).toMatch(/-1767225600-[A-Za-z0-9]{12}$/);
    expect(long.warning).toBe(TRUNCATED_NAME_WARNING);
    expect(iamUserName('a b/c', 'r', now).name).toMatch(/^vault-a_b_c-r-/);
  });
  it('federation names have 32 characters, session names at most 64', () => {
    expect(federationName(now)).toMatch(/^vault-1767225600-[A-Za-z0-9]{15}$/);
    expect(sessionName('s'.repeat(70))).toMatchObject({ name: 's'.repeat(64) });
    expect(sessionName('ok').warning).toBeUndefined();
  });
});

describe('cloud-b record state (write-ahead users)', () => {
  it('a user is pending until core-sys is seen holding its lease; removal makes it pending again', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const later = '2026-01-01T00:00:05.000Z';
    const intended = evolveCloudB(undefined, { type: 'CloudBUserIntended', data: { role: 'r', at } });
    expect(cloudBPendingSince(intended!)).toEqual(new Date(at));
    // issued: the recovery pass asks core-sys for its lease once the registration cannot be coming
    const issued = evolveCloudB(intended, { type: 'CloudBUserIssued', data: { at: later } });
    expect(cloudBPendingSince(issued!)).toEqual(new Date(later));
    const leased = evolveCloudB(issued, { type: 'CloudBUserLeased', data: { at: later } });
    expect(cloudBPendingSince(leased!)).toBeNull();
    const removing = evolveCloudB(leased, { type: 'CloudBUserRemovalStarted', data: { at } });
    expect(cloudBPendingSince(removing!)).toEqual(new Date(at));
    expect(evolveCloudB(removing, { type: 'CloudBRecordDeleted', data: {} })).toBeUndefined();
  });
});
