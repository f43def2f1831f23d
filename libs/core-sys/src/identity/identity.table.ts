import type { ColumnType, Selectable } from 'kysely';
import type { AliasState, EntityState } from './identity.decider';

type Json<T> = ColumnType<T, string, string>;

export interface IdentityEntitiesTable {
  id: string;
  /** "" = root; names are unique per namespace */
  namespace: ColumnType<string, string | undefined, string>;
  name: string;
  /** lower(name): entity names are case-insensitive and unique */
  name_key: string;
  metadata: Json<Record<string, string>>;
  policies: Json<string[]>;
  disabled: boolean;
  created_at: number;
  updated_at: number;
  /** version of the entity's stream this row reflects */
  version: number;
  merged_entity_ids: ColumnType<string[], string | undefined, string>;
}

export interface IdentityAliasesTable {
  id: string;
  canonical_id: string;
  mount_accessor: string;
  name: string;
  custom_metadata: Json<Record<string, string>>;
  created_at: number;
  updated_at: number;
  merged_from: ColumnType<string[], string | undefined, string>;
}

/** Where the id of an entity merged away now points (its tokens act as that entity). */
export interface IdentityMergedEntitiesTable {
  merged_id: string;
  entity_id: string;
}

export interface IdentityDatabase {
  identity_entities: IdentityEntitiesTable;
  identity_aliases: IdentityAliasesTable;
  identity_merged_entities: IdentityMergedEntitiesTable;
}

export const ENTITY_COLUMNS = [
  'id',
  'namespace',
  'name',
  'metadata',
  'policies',
  'disabled',
  'created_at',
  'updated_at',
  'version',
  'merged_entity_ids',
] as const;
export const ALIAS_COLUMNS = [
  'id',
  'canonical_id',
  'mount_accessor',
  'name',
  'custom_metadata',
  'created_at',
  'updated_at',
  'merged_from',
] as const;

/** An entity row as read (ENTITY_COLUMNS). */
export type EntityRow = Pick<Selectable<IdentityEntitiesTable>, (typeof ENTITY_COLUMNS)[number]>;

export type AliasRow = Pick<Selectable<IdentityAliasesTable>, (typeof ALIAS_COLUMNS)[number]>;

export interface VersionedEntity {
  state: EntityState;
  version: number;
}

export function rowToAlias(row: AliasRow): AliasState {
  return {
    id: row.id,
    canonicalId: row.canonical_id,
    mountAccessor: row.mount_accessor,
    name: row.name,
    customMetadata: row.custom_metadata,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mergedFromCanonicalIds: row.merged_from,
  };
}

export function rowToEntity(row: EntityRow, aliases: AliasRow[]): VersionedEntity {
  return {
    version: row.version,
    state: {
      id: row.id,
      namespace: row.namespace,
      name: row.name,
      metadata: row.metadata,
      policies: row.policies,
      disabled: row.disabled,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      aliases: aliases.map(rowToAlias).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)),
      mergedEntityIds: row.merged_entity_ids,
    },
  };
}

export function entityToRow(state: EntityState, version: number) {
  return {
    id: state.id,
    namespace: state.namespace,
    name: state.name,
    name_key: state.name.toLowerCase(),
    metadata: JSON.stringify(state.metadata),
    policies: JSON.stringify(state.policies),
    disabled: state.disabled,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
    version,
    merged_entity_ids: JSON.stringify(state.mergedEntityIds),
  };
}

export function aliasToRow(alias: AliasState) {
  return {
    id: alias.id,
    canonical_id: alias.canonicalId,
    mount_accessor: alias.mountAccessor,
    name: alias.name,
    custom_metadata: JSON.stringify(alias.customMetadata),
    created_at: alias.createdAt,
    updated_at: alias.updatedAt,
    merged_from: JSON.stringify(alias.mergedFromCanonicalIds),
  };
}
