import { invalidRequest } from '@coffer/contracts';
import type { IdentityEvent } from './identity.events';

export interface AliasState {
  id: string;
  canonicalId: string;
  mountAccessor: string;
  name: string;
  customMetadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  /** entities this alias belonged to before merges, oldest first */
  mergedFromCanonicalIds: string[];
}

export interface EntityState {
  id: string;
  /** the namespace the entity belongs to ("" = root), fixed at creation */
  namespace: string;
  name: string;
  metadata: Record<string, string>;
  policies: string[];
  disabled: boolean;
  createdAt: number;
  updatedAt: number;
  aliases: AliasState[];
  /** entities merged into this one (their tokens act as this entity) */
  mergedEntityIds: string[];
}

export function evolve(state: EntityState | null, event: IdentityEvent): EntityState | null {
  switch (event.type) {
    case 'EntityCreated': {
      const { createdAt, ...fields } = event.data;
      return { ...fields, createdAt, updatedAt: createdAt, aliases: [], mergedEntityIds: [] };
    }
    case 'EntityUpdated': {
      if (!state) return null;
      const { updatedAt, ...fields } = event.data;
      return { ...state, ...fields, updatedAt };
    }
    case 'EntityDeleted':
      return null;
    case 'EntityAliasAdded': {
      if (!state) return null;
      const { aliasId, ...fields } = event.data;
      const kept = state.aliases.find((a) => a.id === aliasId)?.mergedFromCanonicalIds ?? [];
      const alias: AliasState = {
        id: aliasId,
        canonicalId: state.id,
        ...fields,
        mergedFromCanonicalIds: kept,
      };
      return { ...state, aliases: [...state.aliases.filter((a) => a.id !== aliasId), alias] };
    }
    case 'EntityAliasUpdated': {
      if (!state) return null;
      const { aliasId, ...fields } = event.data;
      return { ...state, aliases: state.aliases.map((a) => (a.id === aliasId ? { ...a, ...fields } : a)) };
    }
    case 'EntityAliasRemoved':
      return state && { ...state, aliases: state.aliases.filter((a) => a.id !== event.data.aliasId) };
    case 'EntitiesMerged': {
      if (!state) return null;
      const { aliases, removedAliasIds, mergedEntityIds, mergedAt } = event.data;
      const moved = new Set(aliases.map((a) => a.aliasId));
      const own = state.aliases.filter((a) => !removedAliasIds.includes(a.id) && !moved.has(a.id));
      const incoming: AliasState[] = aliases.map(({ aliasId, ...fields }) => ({
        id: aliasId,
        canonicalId: state.id,
        ...fields,
        updatedAt: mergedAt,
      }));
      return {
        ...state,
        aliases: [...own, ...incoming],
        mergedEntityIds: [...new Set([...state.mergedEntityIds, ...mergedEntityIds])],
        updatedAt: mergedAt,
      };
    }
    case 'EntityMergedInto':
      return null;
  }
}

/** Vault's strutil.RemoveDuplicates: trimmed, no empties, deduplicated, sorted. */
export function normalisePolicies(policies: readonly string[]): string[] {
  return [...new Set(policies.map((p) => p.trim()).filter((p) => p !== ''))].sort();
}

/** Fields of an entity write; absent = keep the current value. */
export interface EntityInput {
  name?: string;
  metadata?: Record<string, string>;
  policies?: string[];
  disabled?: boolean;
}

export interface EntityWriteCommand {
  /** the entity named by `id` (body or path), if an id was given */
  byId: EntityState | null;
  idGiven: boolean;
  /** the entity currently holding `input.name`, if any */
  byName: EntityState | null;
  input: EntityInput;
  /** for a new entity */
  newId: string;
  namespace: string;
  generatedName: string;
  nowMs: number;
}

export interface EntityWriteDecision {
  created: boolean;
  entityId: string;
  /** the entity's stream version must be this (0 = new) */
  expected: 'new' | 'existing';
  events: IdentityEvent[];
  after: EntityState;
}

/** Vault's handleEntityUpdateCommon: create, or update the entity found by id or by name. */
export function decideEntityWrite(cmd: EntityWriteCommand): EntityWriteDecision {
  if (cmd.idGiven && !cmd.byId) throw invalidRequest('entity not found from id');
  let entity = cmd.byId;
  const { input } = cmd;
  if (input.name && cmd.byName) {
    if (!entity) entity = cmd.byName;
    else if (entity.id !== cmd.byName.id) throw invalidRequest('entity name is already in use');
  }
  const policies =
    input.policies !== undefined ? normalisePolicies(input.policies) : (entity?.policies ?? []);
  if (policies.includes('root')) throw invalidRequest('policies cannot contain root');

  if (!entity) {
    const event: IdentityEvent = {
      type: 'EntityCreated',
      data: {
        id: cmd.newId,
        name: input.name || cmd.generatedName,
        metadata: input.metadata ?? {},
        policies,
        disabled: input.disabled ?? false,
        createdAt: cmd.nowMs,
        namespace: cmd.namespace,
      },
    };
    return {
      created: true,
      entityId: cmd.newId,
      expected: 'new',
      events: [event],
      after: evolve(null, event) as EntityState,
    };
  }

  const fields = {
    name: input.name || entity.name,
    metadata: input.metadata ?? entity.metadata,
    policies,
    disabled: input.disabled ?? entity.disabled,
  };
  const unchanged =
    fields.name === entity.name &&
    sameMap(fields.metadata, entity.metadata) &&
    fields.policies.join('\n') === entity.policies.join('\n') &&
    fields.disabled === entity.disabled;
  const events: IdentityEvent[] = unchanged
    ? []
    : [{ type: 'EntityUpdated', data: { ...fields, updatedAt: cmd.nowMs } }];
  return {
    created: false,
    entityId: entity.id,
    expected: 'existing',
    events,
    after: { ...entity, ...fields },
  };
}

/** Whether an entity change affects the tokens of the entity (their identity policies, usability). */
export function affectsTokens(before: EntityState | null, after: EntityState | null): boolean {
  if (!before || !after) return before !== after;
  return before.disabled !== after.disabled || before.policies.join('\n') !== after.policies.join('\n');
}

export interface AliasCreateCommand {
  /** the entity named by canonical_id, when one was given */
  entity: EntityState | null;
  canonicalGiven: boolean;
  mountAccessor: string;
  name: string;
  customMetadata: Record<string, string>;
  aliasId: string;
  /** the entity to create when no canonical_id was given, in the namespace of the request */
  newEntity: { id: string; name: string; namespace: string };
  nowMs: number;
}

export interface AliasAppend {
  entityId: string;
  expected: 'new' | 'existing';
  events: IdentityEvent[];
}

/** Vault's handleAliasCreate: a new alias, on the given entity or on a new one. */
export function decideAliasCreate(cmd: AliasCreateCommand): AliasAppend {
  if (cmd.canonicalGiven && !cmd.entity) throw invalidRequest('invalid canonical ID');
  const added: IdentityEvent = {
    type: 'EntityAliasAdded',
    data: {
      aliasId: cmd.aliasId,
      mountAccessor: cmd.mountAccessor,
      name: cmd.name,
      customMetadata: cmd.customMetadata,
      createdAt: cmd.nowMs,
      updatedAt: cmd.nowMs,
    },
  };
  if (!cmd.entity) {
    const created: IdentityEvent = {
      type: 'EntityCreated',
      data: { ...cmd.newEntity, metadata: {}, policies: [], disabled: false, createdAt: cmd.nowMs },
    };
    return { entityId: cmd.newEntity.id, expected: 'new', events: [created, added] };
  }
  if (cmd.entity.aliases.some((a) => a.mountAccessor === cmd.mountAccessor)) {
    throw invalidRequest('Alias already exists for requested entity and mount accessor');
  }
  return { entityId: cmd.entity.id, expected: 'existing', events: [added] };
}

export interface AliasUpdateCommand {
  alias: AliasState;
  /** the entity holding the alias */
  current: EntityState;
  /** requested canonical_id ("" = keep) and the entity it names, if found */
  canonicalId: string;
  target: EntityState | null;
  name: string;
  mountAccessor: string;
  customMetadata: Record<string, string>;
  /** another alias already has (mountAccessor, name) */
  factorsTaken: boolean;
  nowMs: number;
}

/** Appends to do, in order (a move adds to the new entity before removing from the old one). */
export type AliasUpdateDecision =
  { kind: 'noop' } | { kind: 'update'; appends: AliasAppend[]; entityId: string };

/** Vault's handleAliasUpdate: rename, re-mount, re-tag or move an alias to another entity. */
export function decideAliasUpdate(cmd: AliasUpdateCommand): AliasUpdateDecision {
  const { alias } = cmd;
  const moving = cmd.canonicalId !== '' && cmd.canonicalId !== alias.canonicalId;
  const fieldsChanged =
    cmd.name !== alias.name ||
    cmd.mountAccessor !== alias.mountAccessor ||
    !sameMap(cmd.customMetadata, alias.customMetadata);
  if (!moving && !fieldsChanged) return { kind: 'noop' };

  if (cmd.mountAccessor !== alias.mountAccessor && !moving) {
    if (cmd.current.aliases.some((a) => a.id !== alias.id && a.mountAccessor === cmd.mountAccessor)) {
      throw invalidRequest(
        "Alias cannot be updated as the entity already has an alias for the given 'mount_accessor' ",
      );
    }
  }
  if (fieldsChanged && cmd.factorsTaken)
    throw invalidRequest('alias with combination of mount accessor and name already exists');

  const fields = {
    aliasId: alias.id,
    mountAccessor: cmd.mountAccessor,
    name: cmd.name,
    customMetadata: cmd.customMetadata,
  };
  if (!moving) {
    return {
      kind: 'update',
      entityId: cmd.current.id,
      appends: [
        {
          entityId: cmd.current.id,
          expected: 'existing',
          events: [{ type: 'EntityAliasUpdated', data: { ...fields, updatedAt: cmd.nowMs } }],
        },
      ],
    };
  }
  const target = cmd.target;
  if (!target) throw invalidRequest("given 'canonical_id' is not associated with an entity");
  if (target.aliases.some((a) => a.mountAccessor === cmd.mountAccessor)) {
    throw invalidRequest('Alias cannot be updated as the given entity already has an alias for this mount ');
  }
  return {
    kind: 'update',
    entityId: target.id,
    appends: [
      {
        entityId: target.id,
        expected: 'existing',
        events: [
          { type: 'EntityAliasAdded', data: { ...fields, createdAt: alias.createdAt, updatedAt: cmd.nowMs } },
        ],
      },
      {
        entityId: cmd.current.id,
        expected: 'existing',
        events: [
          {
            type: 'EntityAliasRemoved',
            data: { aliasId: alias.id, movedTo: target.id, removedAt: cmd.nowMs },
          },
        ],
      },
    ],
  };
}

export function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k])
  );
}
