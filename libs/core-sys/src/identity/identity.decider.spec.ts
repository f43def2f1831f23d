import { DomainError } from '@coffer/contracts';
import {
  affectsTokens,
  decideAliasCreate,
  decideAliasUpdate,
  decideEntityWrite,
  evolve,
  normalisePolicies,
  type AliasState,
  type EntityState,
  type EntityWriteCommand,
} from './identity.decider';

const NOW = 1_700_000_000_000;

function entity(over: Partial<EntityState> = {}): EntityState {
  return {
    id: 'e1',
    namespace: '',
    name: 'alice',
    metadata: {},
    policies: [],
    disabled: false,
    createdAt: 1,
    updatedAt: 1,
    aliases: [],
    mergedEntityIds: [],
    ...over,
  };
}

function alias(over: Partial<AliasState> = {}): AliasState {
  return {
    id: 'a1',
    canonicalId: 'e1',
    mountAccessor: 'auth_userpass_1',
    name: 'alice',
    customMetadata: {},
    createdAt: 1,
    updatedAt: 1,
    mergedFromCanonicalIds: [],
    ...over,
  };
}

function write(over: Partial<EntityWriteCommand>) {
  return decideEntityWrite({
    byId: null,
    idGiven: false,
    byName: null,
    input: {},
    newId: 'new',
    namespace: '',
    generatedName: 'entity_0badf00d',
    nowMs: NOW,
    ...over,
  });
}

function failure(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('decideEntityWrite', () => {
  it('creates with a generated name when none is given', () => {
    const d = write({ input: { policies: ['b', 'a', 'a'] } });
    expect(d.created).toBe(true);
    expect(d.after).toMatchObject({
      id: 'new',
      name: 'entity_0badf00d',
      policies: ['a', 'b'],
      disabled: false,
    });
  });

  it('updates the entity holding the name', () => {
    const d = write({ byName: entity(), input: { name: 'alice', metadata: { team: 'x' } } });
    expect(d.created).toBe(false);
    expect(d.entityId).toBe('e1');
    expect(d.events).toEqual([
      {
        type: 'EntityUpdated',
        data: { name: 'alice', metadata: { team: 'x' }, policies: [], disabled: false, updatedAt: NOW },
      },
    ]);
  });

  it('records nothing when nothing changes', () => {
    expect(write({ byId: entity(), idGiven: true, input: { name: 'alice' } }).events).toEqual([]);
  });

  it('refuses a name held by another entity, unknown ids and root policy', () => {
    expect(
      failure(() =>
        write({ byId: entity(), idGiven: true, byName: entity({ id: 'e2' }), input: { name: 'alice' } }),
      ).message,
    ).toBe('entity name is already in use');
    expect(failure(() => write({ idGiven: true })).message).toBe('entity not found from id');
    expect(failure(() => write({ input: { policies: ['root'] } })).message).toBe(
      'policies cannot contain root',
    );
  });

  it('knows which changes matter to tokens', () => {
    expect(affectsTokens(entity(), entity({ metadata: { a: 'b' } }))).toBe(false);
    expect(affectsTokens(entity(), entity({ policies: ['x'] }))).toBe(true);
    expect(affectsTokens(entity(), entity({ disabled: true }))).toBe(true);
    expect(affectsTokens(entity(), null)).toBe(true);
    expect(normalisePolicies([' b', 'a', '', 'b'])).toEqual(['a', 'b']);
  });
});

describe('aliases', () => {
  const create = {
    canonicalGiven: false,
    mountAccessor: 'auth_userpass_1',
    name: 'alice',
    customMetadata: {},
    aliasId: 'a9',
    newEntity: { id: 'e9', name: 'entity_1', namespace: '' },
    nowMs: NOW,
  };

  it('creates a new entity with the alias in one append when no canonical id is given', () => {
    const d = decideAliasCreate({ ...create, entity: null });
    expect(d.entityId).toBe('e9');
    expect(d.expected).toBe('new');
    expect(d.events.map((e) => e.type)).toEqual(['EntityCreated', 'EntityAliasAdded']);
    const folded = d.events.reduce<EntityState | null>((s, e) => evolve(s, e), null);
    expect(folded?.aliases).toEqual([alias({ id: 'a9', canonicalId: 'e9', createdAt: NOW, updatedAt: NOW })]);
  });

  it('refuses an unknown canonical id and a second alias on the same mount', () => {
    expect(failure(() => decideAliasCreate({ ...create, entity: null, canonicalGiven: true })).message).toBe(
      'invalid canonical ID',
    );
    expect(
      failure(() =>
        decideAliasCreate({ ...create, entity: entity({ aliases: [alias()] }), canonicalGiven: true }),
      ).message,
    ).toBe('Alias already exists for requested entity and mount accessor');
  });

  const base = {
    alias: alias(),
    current: entity({ aliases: [alias()] }),
    canonicalId: '',
    target: null,
    name: 'alice',
    mountAccessor: 'auth_userpass_1',
    customMetadata: {},
    factorsTaken: false,
    nowMs: NOW,
  };

  it('does nothing for an identical write', () => {
    expect(decideAliasUpdate(base)).toEqual({ kind: 'noop' });
  });

  it('renames in place', () => {
    const d = decideAliasUpdate({ ...base, name: 'alice2' });
    expect(d.kind === 'update' && d.appends).toEqual([
      {
        entityId: 'e1',
        expected: 'existing',
        events: [
          {
            type: 'EntityAliasUpdated',
            data: {
              aliasId: 'a1',
              mountAccessor: 'auth_userpass_1',
              name: 'alice2',
              customMetadata: {},
              updatedAt: NOW,
            },
          },
        ],
      },
    ]);
    expect(failure(() => decideAliasUpdate({ ...base, name: 'bob', factorsTaken: true })).message).toBe(
      'alias with combination of mount accessor and name already exists',
    );
  });

  it('moves to another entity: add there first, then remove here', () => {
    const d = decideAliasUpdate({ ...base, canonicalId: 'e2', target: entity({ id: 'e2', name: 'other' }) });
    expect(d.kind).toBe('update');
    if (d.kind !== 'update') return;
    expect(d.entityId).toBe('e2');
    expect(d.appends.map((a) => [a.entityId, a.events[0]?.type])).toEqual([
      ['e2', 'EntityAliasAdded'],
      ['e1', 'EntityAliasRemoved'],
    ]);
    expect(failure(() => decideAliasUpdate({ ...base, canonicalId: 'e2', target: null })).message).toBe(
      "given 'canonical_id' is not associated with an entity",
    );
  });
});

describe('entities in namespaces', () => {
  it('creates an entity in the namespace of the request, and keeps it there on update', () => {
    const created = write({ namespace: 'ns1/', input: { name: 'bob' } });
    expect(created.after.namespace).toBe('ns1/');
    expect(created.events[0]).toMatchObject({ type: 'EntityCreated', data: { namespace: 'ns1/' } });
    const updated = write({ byId: created.after, idGiven: true, namespace: '', input: { policies: ['p'] } });
    expect(updated.after.namespace).toBe('ns1/');
  });

  it('creates the entity of a first login in the namespace of the auth mount', () => {
    const d = decideAliasCreate({
      entity: null,
      canonicalGiven: false,
      mountAccessor: 'auth_userpass_ns1',
      name: 'carol',
      customMetadata: {},
      aliasId: 'a1',
      newEntity: { id: 'e1', name: 'entity_1', namespace: 'ns1/ns2/' },
      nowMs: NOW,
    });
    const folded = d.events.reduce<EntityState | null>((s, e) => evolve(s, e), null);
    expect(folded?.namespace).toBe('ns1/ns2/');
  });
});
