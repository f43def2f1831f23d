import {
  checkRoleTtls,
  parseRequestedGroups,
  parseRequestedRoles,
  uniqueAssignments,
} from './cloud-a-role.rules';

describe('cloud-a role rules', () => {
  it('parses cloud_a_roles and cloud_a_groups from JSON strings', () => {
    expect(parseRequestedRoles('[{"role_name":"Reader","scope":"/subscriptions/s"}]')).toEqual([
      { role_name: 'Reader', role_id: '', scope: '/subscriptions/s' },
    ]);
    expect(parseRequestedRoles('')).toEqual([]);
    expect(parseRequestedRoles('null')).toEqual([]);
    expect(() => parseRequestedRoles('{"role_name":"x"}')).toThrow(
      `error parsing Azure roles '{"role_name":"x"}'`,
    );
    expect(() => parseRequestedRoles('[{"role_name":"x"}]')).toThrow('each role needs a scope');
    expect(() => parseRequestedRoles('[{"scope":"/s"}]')).toThrow('each role needs role_name or role_id');
    expect(parseRequestedGroups('[{"object_id":"g"}]')).toEqual([{ group_name: '', object_id: 'g' }]);
    expect(() => parseRequestedGroups('[1]')).toThrow("error parsing Azure groups '[1]'");
  });

  it('checks ttl against max_ttl and dedupes assignments', () => {
    expect(() => checkRoleTtls(10, 5)).toThrow('ttl cannot be greater than max_ttl');
    expect(() => checkRoleTtls(10, 0)).not.toThrow();
    expect(
      uniqueAssignments([
        { role_id: '/R', scope: '/S' },
        { role_id: '/r', scope: '/s' },
        { role_id: '/r', scope: '/t' },
      ]),
    ).toHaveLength(2);
  });
});
