import type { EntityFacts } from '@coffer/contracts';
import { entityAssigned } from './entity-access';
import { scopeClaims } from './scope-claims';

const entity: EntityFacts = {
  id: 'e-1',
  name: 'alice',
  metadata: { email: 'alice@example.com' },
  aliases: [],
  groups: [
    { id: 'g-1', name: 'eng' },
    { id: 'g-2', name: 'ops' },
  ],
};
const now = new Date('2024-01-01T00:00:00Z');

describe('scopeClaims', () => {
  it('merges the claims of each scope, rendered for the entity', () => {
    const claims = scopeClaims(
      [
        {
          scope: 'profile',
          template: '{"name": {{identity.entity.name}}, "email": {{identity.entity.metadata.email}}}',
        },
        { scope: 'groups', template: '{"groups": {{identity.entity.groups.names}}}' },
      ],
      entity,
      now,
    );
    expect(claims).toEqual({
      ok: true,
      claims: { name: 'alice', email: 'alice@example.com', groups: ['eng', 'ops'] },
    });
  });

  it('reports two scopes setting one top-level claim (Vault text)', () => {
    expect(
      scopeClaims(
        [
          { scope: 'a', template: '{"x": 1}' },
          { scope: 'b', template: '{"x": 2}' },
        ],
        entity,
        now,
      ),
    ).toEqual({
      ok: false,
      conflict: 'found scopes with conflicting top-level claim: claim "x" in scopes "b", "a"',
    });
  });

  it('never lets a template set the ID token claims, and skips what does not render', () => {
    const claims = scopeClaims(
      [
        { scope: 'a', template: '{"sub": "evil", "ok": true}' },
        { scope: 'b', template: '{"n": {{identity.entity.nope}}}' },
        { scope: 'c', template: '' },
      ],
      entity,
      now,
    );
    expect(claims).toEqual({ ok: true, claims: { ok: true } });
  });
});

describe('entityAssigned', () => {
  const assignment = (entityIds: string[], groupIds: string[]) => ({ entityIds, groupIds });

  it('lets allow_all, a listed entity, or a member of a listed group in', () => {
    expect(entityAssigned(entity, [{ name: 'allow_all', state: undefined }])).toBe(true);
    expect(entityAssigned(entity, [{ name: 'a', state: assignment(['e-1'], []) }])).toBe(true);
    expect(entityAssigned(entity, [{ name: 'a', state: assignment([], ['g-2']) }])).toBe(true);
    expect(entityAssigned(entity, [{ name: 'a', state: assignment(['e-2'], ['g-9']) }])).toBe(false);
    expect(entityAssigned(entity, [])).toBe(false);
  });

  it('does not read "*" in a user-defined assignment as everyone (only allow_all is)', () => {
    expect(entityAssigned(entity, [{ name: 'mine', state: assignment(['*'], ['*']) }])).toBe(false);
  });

  it('fails on an assignment that no longer exists', () => {
    expect(() => entityAssigned(entity, [{ name: 'gone', state: undefined }])).toThrow(
      'client assignment "gone" not found',
    );
  });
});
