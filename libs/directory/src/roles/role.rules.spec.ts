import type { RoleState } from '../records/record.state';
import { roleNeedsRotation, roleTtl, usernameOf } from './role.rules';

const passwords = {
  ttl: 3600,
  max_ttl: 7200,
  length: 64,
  formatter: '',
  password_policy: '',
  last_rotation_tolerance: 5,
};
const role = (last_rotation: string | null, ttl = 60): RoleState => ({
  kind: 'role',
  service_account_name: 'app@corp.test',
  ttl,
  password: { current: last_rotation ? 'pw' : null, last: null, pending: null, last_rotation },
});
const at = (iso: string) => new Date(iso);

describe('directory role rules', () => {
  it("takes the config's ttl for 0 and refuses more than its max_ttl", () => {
    expect(roleTtl(0, passwords)).toBe(3600);
    expect(roleTtl(60, passwords)).toBe(60);
    expect(() => roleTtl(9000, passwords)).toThrow(
      'requested ttl of 9000 seconds is over the max ttl of 7200 seconds',
    );
  });

  it('rotates when never rotated, when the directory changed it later, or when the ttl passed', () => {
    const now = at('2026-01-01T00:00:30Z');
    expect(roleNeedsRotation(role(null), null, now, 5)).toBe(true);
    expect(roleNeedsRotation(role('2026-01-01T00:00:00Z'), null, now, 5)).toBe(false);
    // within the tolerance, the directory's last-set time is Coffer's own change
    expect(roleNeedsRotation(role('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:04Z'), now, 5)).toBe(false);
    expect(roleNeedsRotation(role('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:06Z'), now, 5)).toBe(true);
    expect(roleNeedsRotation(role('2026-01-01T00:00:00Z'), null, at('2026-01-01T00:01:01Z'), 5)).toBe(true);
  });

  it('names the login before the @', () => {
    expect(usernameOf('app@corp.test')).toBe('app');
    expect(usernameOf('svc1')).toBe('svc1');
  });
});
