import { DomainError } from '@coffer/contracts';
import {
  createsCycle,
  cycleText,
  decideGroupAliasWrite,
  decideGroupWrite,
  entityGroups,
  foldGraph,
  normaliseGroupPolicies,
  parentIds,
  type GroupAliasWriteCommand,
  type GroupGraph,
  type GroupState,
  type GroupWriteCommand,
} from './group.decider';
import { decideMerge } from './entity-merge.decider';
import type { AliasState, EntityState } from './identity.decider';

const NOW = 1_700_000_000_000;

function group(id: string, over: Partial<GroupState> = {}): GroupState {
  return {
    id,
    name: id,
    type: 'internal',
    metadata: {},
    policies: [],
    memberEntityIds: [],
    memberGroupIds: [],
    alias: null,
    createdAt: 1,
    updatedAt: 1,
    modifyIndex: 1,
    ...over,
  };
}

const graphOf = (...groups: GroupState[]): GroupGraph => new Map(groups.map((g) => [g.id, g]));

function write(over: Partial<GroupWriteCommand>) {
  return decideGroupWrite({
    graph: new Map(),
    group: null,
    input: {},
    existingEntities: new Set(),
    newId: 'new',
    generatedName: 'group_0000abcd',
    nowMs: NOW,
    ...over,
  });
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.message;
    throw e;
  }
  throw new Error('expected a refusal');
}

// a ⊃ b ⊃ c (a has member group b, b has member group c)
const chain = graphOf(
  group('a', { memberGroupIds: ['b'], policies: ['pa'] }),
  group('b', { memberGroupIds: ['c'], policies: ['pb'] }),
  group('c', { memberEntityIds: ['e1'], policies: ['pc'] }),
  group('d', { memberEntityIds: ['e1', 'e2'] }),
);

describe('cycle detection', () => {
  it('finds a loop through any depth of nesting', () => {
    expect(createsCycle(chain, 'c', 'a')).toBe(true);
    expect(createsCycle(chain, 'b', 'a')).toBe(true);
    expect(createsCycle(chain, 'c', 'c')).toBe(true);
    expect(createsCycle(chain, 'a', 'c')).toBe(false);
    expect(createsCycle(chain, 'd', 'a')).toBe(false);
  });

  it('refuses a member group that closes a loop, with Vault’s text', () => {
    const c = chain.get('c') as GroupState;
    expect(refusal(() => write({ graph: chain, group: c, input: { memberGroupIds: ['a'] } }))).toBe(
      'cyclic relationship detected for member group ID "a"',
    );
    expect(cycleText('x')).toBe('cyclic relationship detected for member group ID "x"');
  });

  it('refuses the group itself as its member', () => {
    const d = chain.get('d') as GroupState;
    expect(refusal(() => write({ graph: chain, group: d, input: { memberGroupIds: ['d'] } }))).toBe(
      'member group ID "d" is same as the ID of the group',
    );
  });

  it('accepts a diamond (two paths to one group are no loop)', () => {
    const d = chain.get('d') as GroupState;
    const decision = write({ graph: chain, group: d, input: { memberGroupIds: ['b', 'c'] } });
    expect(decision.group.memberGroupIds).toEqual(['b', 'c']);
  });
});

describe('membership', () => {
  it('gives an entity its direct groups and every group they are nested in', () => {
    const { direct, inherited } = entityGroups(chain, 'e1');
    expect(direct.map((g) => g.id)).toEqual(['c', 'd']);
    expect(inherited.map((g) => g.id)).toEqual(['a', 'b']);
    expect(entityGroups(chain, 'e2').inherited).toEqual([]);
    expect(parentIds(chain, 'c')).toEqual(['b']);
  });

  it('checks member entities and groups exist', () => {
    expect(refusal(() => write({ input: { memberEntityIds: ['nope'] } }))).toBe('invalid entity ID "nope"');
    expect(refusal(() => write({ graph: chain, input: { memberGroupIds: ['zz'] } }))).toBe(
      'invalid member group ID "zz"',
    );
    const ok = write({
      input: { memberEntityIds: ['e2', 'e1', 'e2'] },
      existingEntities: new Set(['e1', 'e2']),
    });
    expect(ok.group.memberEntityIds).toEqual(['e1', 'e2']);
  });

  it('keeps external groups free of hand-set members', () => {
    expect(refusal(() => write({ input: { type: 'external', memberEntityIds: [] } }))).toBe(
      "member entities can't be set manually for external groups",
    );
    expect(refusal(() => write({ input: { type: 'external', memberGroupIds: [] } }))).toBe(
      "member groups can't be set for external groups",
    );
  });

  it('drops deleted entities from every group, and passes merged ones on', () => {
    const after = foldGraph(chain, [
      { type: 'GroupEntityMembersRemoved', data: { entityIds: ['e1'], at: NOW } },
    ]);
    expect(after.get('c')?.memberEntityIds).toEqual([]);
    expect(after.get('d')).toMatchObject({ memberEntityIds: ['e2'], modifyIndex: 2 });
    expect(after.get('a')).toBe(chain.get('a'));
    const merged = foldGraph(chain, [
      { type: 'GroupEntityMembersMerged', data: { fromEntityIds: ['e1'], toEntityId: 'e9', at: NOW } },
    ]);
    expect(merged.get('d')?.memberEntityIds).toEqual(['e2', 'e9']);
  });

  it('unnests a deleted group from its parents', () => {
    const after = foldGraph(chain, [{ type: 'GroupDeleted', data: { id: 'b', deletedAt: NOW } }]);
    expect(after.has('b')).toBe(false);
    expect(after.get('a')?.memberGroupIds).toEqual([]);
  });
});

describe('group writes', () => {
  it('creates with Vault’s defaults', () => {
    const d = write({});
    expect(d.created).toBe(true);
    expect(d.group).toMatchObject({ id: 'new', name: 'group_0000abcd', type: 'internal', modifyIndex: 1 });
    expect(d.events[0]?.type).toBe('GroupCreated');
  });

  it('refuses root, an unknown type, a type change and a taken name', () => {
    expect(refusal(() => write({ input: { policies: ['ROOT'] } }))).toBe('policies cannot contain root');
    expect(refusal(() => write({ input: { type: 'other' } }))).toBe('invalid group type "other"');
    const a = chain.get('a') as GroupState;
    expect(refusal(() => write({ graph: chain, group: a, input: { type: 'external' } }))).toBe(
      'group type cannot be changed',
    );
    expect(refusal(() => write({ graph: chain, group: a, input: { name: 'B' } }))).toBe(
      'group name is already in use',
    );
  });

  it('normalises policies as Vault: trimmed, deduplicated ignoring case, sorted', () => {
    expect(normaliseGroupPolicies([' dev', 'ops', 'DEV', '', 'ops '])).toEqual(['dev', 'ops']);
  });

  it('bumps modify_index on every write, even an identical one (Vault upserts)', () => {
    const a = chain.get('a') as GroupState;
    const d = write({ graph: chain, group: a, input: { policies: ['pa'], memberGroupIds: ['b'] } });
    expect(d.events).toHaveLength(1);
    expect(d.group).toMatchObject({ modifyIndex: 2, updatedAt: NOW, policies: ['pa'] });
  });
});

describe('group aliases', () => {
  const ext = group('x', { type: 'external' });
  const base: GroupAliasWriteCommand = {
    graph: graphOf(ext, group('i')),
    alias: null,
    name: 'devs',
    mountAccessor: 'auth_ldap_1',
    canonicalId: 'x',
    mount: { local: false },
    factorsHolder: undefined,
    newAliasId: 'al1',
    newGroup: { id: 'g-new', name: 'group_1' },
    nowMs: NOW,
  };

  it('sets the alias of an external group', () => {
    const d = decideGroupAliasWrite(base);
    expect(d).toMatchObject({ kind: 'write', aliasId: 'al1', groupId: 'x' });
    const after = foldGraph(base.graph, d.kind === 'write' ? d.events : []);
    expect(after.get('x')?.alias).toMatchObject({ id: 'al1', name: 'devs', mountAccessor: 'auth_ldap_1' });
  });

  it('creates an external group for an alias without canonical_id', () => {
    const d = decideGroupAliasWrite({ ...base, canonicalId: '' });
    expect(d).toMatchObject({ kind: 'write', groupId: 'g-new' });
    const after = foldGraph(base.graph, d.kind === 'write' ? d.events : []);
    expect(after.get('g-new')).toMatchObject({ type: 'external', alias: { id: 'al1' } });
  });

  it('refuses with Vault’s texts', () => {
    expect(refusal(() => decideGroupAliasWrite({ ...base, name: '' }))).toBe('missing alias name');
    expect(refusal(() => decideGroupAliasWrite({ ...base, mountAccessor: '' }))).toBe(
      'missing mount_accessor',
    );
    expect(refusal(() => decideGroupAliasWrite({ ...base, canonicalId: 'i' }))).toBe(
      "alias can't be set on an internal group",
    );
    expect(refusal(() => decideGroupAliasWrite({ ...base, canonicalId: 'zz' }))).toBe(
      "invalid group ID given in 'canonical_id'",
    );
    expect(refusal(() => decideGroupAliasWrite({ ...base, mount: undefined }))).toBe(
      'invalid mount accessor "auth_ldap_1"',
    );
    expect(refusal(() => decideGroupAliasWrite({ ...base, mount: { local: true } }))).toBe(
      'mount accessor "auth_ldap_1" is a local mount',
    );
    const holder = {
      id: 'other',
      groupId: 'y',
      mountAccessor: 'auth_ldap_1',
      name: 'devs',
      createdAt: 1,
      updatedAt: 1,
    };
    expect(refusal(() => decideGroupAliasWrite({ ...base, factorsHolder: holder }))).toBe(
      'combination of mount and group alias name is already in use',
    );
  });

  it('moves an alias to another group, which then holds the only copy', () => {
    const holder = group('y', { type: 'external' });
    const g1 = foldGraph(graphOf(ext, holder), [
      {
        type: 'GroupAliasSet',
        data: { groupId: 'x', aliasId: 'al1', mountAccessor: 'm', name: 'n', createdAt: 1, updatedAt: 1 },
      },
    ]);
    const alias = g1.get('x')?.alias ?? null;
    const d = decideGroupAliasWrite({
      ...base,
      graph: g1,
      alias,
      name: 'n',
      mountAccessor: 'm',
      canonicalId: 'y',
    });
    const after = foldGraph(g1, d.kind === 'write' ? d.events : []);
    expect(after.get('x')?.alias).toBeNull();
    expect(after.get('y')?.alias).toMatchObject({ id: 'al1', createdAt: 1 });
  });
});

describe('entity merge', () => {
  const alias = (id: string, accessor: string, canonicalId: string): AliasState => ({
    id,
    canonicalId,
    mountAccessor: accessor,
    name: id,
    customMetadata: {},
    createdAt: 1,
    updatedAt: 1,
    mergedFromCanonicalIds: [],
  });
  const entity = (id: string, aliases: AliasState[], mergedEntityIds: string[] = []): EntityState => ({
    id,
    namespace: '',
    name: id,
    metadata: {},
    policies: [],
    disabled: false,
    createdAt: 1,
    updatedAt: 1,
    aliases,
    mergedEntityIds,
  });
  const to = entity('t', [alias('ta', 'up', 't')]);
  const from = entity('f', [alias('fa', 'up', 'f'), alias('fb', 'ap', 'f')], ['old']);
  const merge = (keep: string[] = [], fromIds = ['f']) =>
    decideMerge({ to, toId: 't', fromIds, from: new Map([['f', from]]), keep, nowMs: NOW });

  it('refuses missing or invalid ids with Vault’s texts', () => {
    expect(
      refusal(() => decideMerge({ to: null, toId: '', fromIds: [], from: new Map(), keep: [], nowMs: NOW })),
    ).toBe('missing entity id to merge to');
    expect(
      refusal(() => decideMerge({ to, toId: 't', fromIds: [], from: new Map(), keep: [], nowMs: NOW })),
    ).toBe('missing entity ids to merge from');
    expect(refusal(() => merge([], ['t']))).toBe('to_entity_id should not be present in from_entity_ids');
    expect(refusal(() => merge([], ['nope']))).toBe('entity id to merge from is invalid');
    expect(refusal(() => merge(['a', 'b'], ['f', 'g']))).toBe(
      'aliases conflicts cannot be resolved with multiple from entity ids - merge one entity at a time',
    );
  });

  it('reports aliases of the same mount unless told which to keep', () => {
    expect(refusal(() => merge())).toContain(
      'conflicting toEntity alias ID: ta, conflicting fromEntity alias ID: fa',
    );
    expect(refusal(() => merge(['zz']))).toBe(
      'conflicting mount accessors in following alias IDs and neither were present in conflicting_alias_ids_to_keep: fa, ta',
    );
  });

  it('moves the aliases over, keeping the chosen one of a conflict', () => {
    const keepTo = merge(['ta']);
    const moved = keepTo.target[0]?.type === 'EntitiesMerged' ? keepTo.target[0].data : undefined;
    expect(moved?.aliases.map((a) => a.aliasId)).toEqual(['fb']);
    expect(moved?.mergedEntityIds).toEqual(['old', 'f']);
    expect(moved?.aliases[0]?.mergedFromCanonicalIds).toEqual(['f']);
    const keepFrom = merge(['fa']);
    const data = keepFrom.target[0]?.type === 'EntitiesMerged' ? keepFrom.target[0].data : undefined;
    expect(data?.removedAliasIds).toEqual(['ta']);
    expect(data?.aliases.map((a) => a.aliasId)).toEqual(['fa', 'fb']);
    expect(keepFrom.merged).toEqual([
      { entityId: 'f', events: [{ type: 'EntityMergedInto', data: { toEntityId: 't', mergedAt: NOW } }] },
    ]);
  });
});
