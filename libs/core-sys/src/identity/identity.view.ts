import type { AliasData, AliasListData, EntityData, EntityListData } from '@coffer/contracts';
import type { AliasState, EntityState } from './identity.decider';

/** Path and type of an auth mount, by accessor (absent when the mount is gone). */
export type MountLookup = (accessor: string) => { path: string; type: string } | undefined;

export const iso = (ms: number): string => new Date(ms).toISOString();
export const listOrNull = (ids: string[]): string[] | null => (ids.length > 0 ? ids : null);
export const mapOrNull = (m: Record<string, string>): Record<string, string> | null =>
  Object.keys(m).length > 0 ? m : null;

export type MountFields = { mount_type?: string; mount_path?: string };
type ListedAlias = NonNullable<EntityListData['key_info'][string]['aliases']>[number];

export function withMount<T extends MountFields>(out: T, accessor: string, mounts: MountLookup): T {
  const mount = mounts(accessor);
  if (mount) {
    out.mount_type = mount.type;
    out.mount_path = mount.path;
  }
  return out;
}

/** An alias as it appears inside an entity read (Vault's handleEntityReadCommon). */
export function entityAliasView(alias: AliasState, mounts: MountLookup): EntityData['aliases'][number] {
  return withMount<EntityData['aliases'][number]>(
    {
      id: alias.id,
      canonical_id: alias.canonicalId,
      mount_accessor: alias.mountAccessor,
      metadata: null,
      name: alias.name,
      merged_from_canonical_ids: listOrNull(alias.mergedFromCanonicalIds),
      creation_time: iso(alias.createdAt),
      last_update_time: iso(alias.updatedAt),
      local: false,
      custom_metadata: alias.customMetadata,
    },
    alias.mountAccessor,
    mounts,
  );
}

/** The groups of an entity: direct ones, and those they are nested in (ids, sorted). */
export interface EntityGroupIds {
  direct: string[];
  inherited: string[];
}

export function entityView(
  entity: EntityState,
  mounts: MountLookup,
  groups: EntityGroupIds = { direct: [], inherited: [] },
  /** the id of the entity's namespace ("root" for the root namespace, as Vault) */
  namespaceId = 'root',
): EntityData {
  return {
    id: entity.id,
    name: entity.name,
    metadata: mapOrNull(entity.metadata),
    merged_entity_ids: listOrNull(entity.mergedEntityIds),
    policies: entity.policies,
    disabled: entity.disabled,
    namespace_id: namespaceId,
    creation_time: iso(entity.createdAt),
    last_update_time: iso(entity.updatedAt),
    aliases: entity.aliases.map((a) => entityAliasView(a, mounts)),
    direct_group_ids: groups.direct,
    inherited_group_ids: groups.inherited,
    group_ids: [...groups.direct, ...groups.inherited],
  };
}

/** LIST identity/entity/id|name. Vault keys key_info by entity id in both lists. */
export function entityList(entities: EntityState[], byId: boolean, mounts: MountLookup): EntityListData {
  const keyInfo: EntityListData['key_info'] = {};
  for (const e of entities) {
    const entry: EntityListData['key_info'][string] = { name: e.name };
    if (e.aliases.length > 0) {
      entry.aliases = e.aliases.map((a) =>
        withMount<ListedAlias>(
          { id: a.id, name: a.name, mount_accessor: a.mountAccessor },
          a.mountAccessor,
          mounts,
        ),
      );
    }
    keyInfo[e.id] = entry;
  }
  return { keys: entities.map((e) => (byId ? e.id : e.name)), key_info: keyInfo };
}

export function aliasView(alias: AliasState, mounts: MountLookup): AliasData {
  return withMount<AliasData>(
    {
      id: alias.id,
      canonical_id: alias.canonicalId,
      mount_accessor: alias.mountAccessor,
      metadata: null,
      custom_metadata: alias.customMetadata,
      name: alias.name,
      merged_from_canonical_ids: listOrNull(alias.mergedFromCanonicalIds),
      namespace_id: 'root',
      local: false,
      creation_time: iso(alias.createdAt),
      last_update_time: iso(alias.updatedAt),
    },
    alias.mountAccessor,
    mounts,
  );
}

export function aliasList(aliases: AliasState[], mounts: MountLookup): AliasListData {
  const keyInfo: AliasListData['key_info'] = {};
  for (const a of aliases) {
    keyInfo[a.id] = withMount<AliasListData['key_info'][string]>(
      {
        canonical_id: a.canonicalId,
        custom_metadata: a.customMetadata,
        local: false,
        mount_accessor: a.mountAccessor,
        name: a.name,
      },
      a.mountAccessor,
      mounts,
    );
  }
  return { keys: aliases.map((a) => a.id), key_info: keyInfo };
}

/** Path and type of each auth mount named by `accessors`, looked up once each. */
export async function lookupMounts(
  find: (accessor: string) => Promise<{ path: string; type: string } | undefined>,
  accessors: Iterable<string>,
): Promise<MountLookup> {
  const found = new Map<string, { path: string; type: string }>();
  for (const accessor of new Set(accessors)) {
    const mount = await find(accessor);
    if (mount) found.set(accessor, { path: mount.path, type: mount.type });
  }
  return (accessor) => found.get(accessor);
}
