import { invalidRequest } from '@coffer/contracts';
import type { AliasState, EntityState } from './identity.decider';
import type { IdentityEvent } from './identity.events';

export interface MergeCommand {
  to: EntityState | null;
  toId: string;
  fromIds: string[];
  /** the entities named by fromIds that exist, by id */
  from: ReadonlyMap<string, EntityState>;
  keep: string[];
  nowMs: number;
}

export interface MergeDecision {
  /** appended to the target first (it takes the aliases over), then one append per merged entity */
  target: IdentityEvent[];
  merged: { entityId: string; events: IdentityEvent[] }[];
  fromIds: string[];
}

const clashLine = (accessor: string, toId: string, fromId: string, toAlias: string, fromAlias: string) =>
  `mountAccessor: ${accessor}, toEntity ID: ${toId}, fromEntity ID: ${fromId}, conflicting toEntity alias ID: ${toAlias}, conflicting fromEntity alias ID: ${fromAlias}`;

/** Go's multierror text, as Vault's merge answers it. */
function multiError(errors: string[]): string {
  const lines = errors.map((e) => `\t* ${e}`).join('\n');
  return `${errors.length} error${errors.length === 1 ? '' : 's'} occurred:\n${lines}\n\n`;
}

/** Vault's pathEntityMergeID / mergeEntity (without MFA secrets, which Coffer does not keep). */
export function decideMerge(cmd: MergeCommand): MergeDecision {
  if (!cmd.toId) throw invalidRequest('missing entity id to merge to');
  if (cmd.fromIds.length === 0) throw invalidRequest('missing entity ids to merge from');
  const to = cmd.to;
  if (!to) throw invalidRequest('entity id to merge to is invalid');
  if (cmd.fromIds.length > 1 && cmd.keep.length > 1) {
    throw invalidRequest(
      'aliases conflicts cannot be resolved with multiple from entity ids - merge one entity at a time',
    );
  }
  const fromIds = [...new Set(cmd.fromIds)].sort();
  const froms: EntityState[] = [];
  for (const id of fromIds) {
    if (id === to.id) throw invalidRequest('to_entity_id should not be present in from_entity_ids');
    const from = cmd.from.get(id);
    if (!from) throw invalidRequest('entity id to merge from is invalid');
    froms.push(from);
  }

  if (cmd.keep.length === 0) {
    const accessorOwner = new Map<string, string>();
    const clashes: string[] = [];
    for (const from of froms) {
      for (const toAlias of to.aliases) {
        for (const fromAlias of from.aliases) {
          const owner = accessorOwner.get(fromAlias.mountAccessor);
          if (owner !== undefined && owner !== from.id) {
            throw invalidRequest(
              `mount accessor ${fromAlias.mountAccessor} found in multiple fromEntities, merge should be done with one fromEntity at a time`,
            );
          }
          accessorOwner.set(fromAlias.mountAccessor, from.id);
          if (toAlias.mountAccessor === fromAlias.mountAccessor)
            clashes.push(clashLine(toAlias.mountAccessor, to.id, from.id, toAlias.id, fromAlias.id));
        }
      }
    }
    if (clashes.length > 0) {
      throw invalidRequest(
        multiError([
          'toEntity and at least one fromEntity have aliases with the same mount accessor, repeat the merge request specifying exactly one fromEntity, clashes: ',
          ...clashes,
        ]),
      );
    }
  }

  const moved: AliasState[] = [];
  const removed = new Set<string>();
  const mergedEntityIds: string[] = [];
  for (const from of froms) {
    for (const fromAlias of from.aliases) {
      let dropped = false;
      for (const toAlias of to.aliases.filter((a) => a.mountAccessor === fromAlias.mountAccessor)) {
        if (cmd.keep.includes(toAlias.id)) dropped = true;
        else if (cmd.keep.includes(fromAlias.id)) removed.add(toAlias.id);
        else {
          throw invalidRequest(
            `conflicting mount accessors in following alias IDs and neither were present in conflicting_alias_ids_to_keep: ${fromAlias.id}, ${toAlias.id}`,
          );
        }
      }
      if (!dropped)
        moved.push({ ...fromAlias, mergedFromCanonicalIds: [...fromAlias.mergedFromCanonicalIds, from.id] });
    }
    mergedEntityIds.push(...from.mergedEntityIds, from.id);
  }
  const target: IdentityEvent = {
    type: 'EntitiesMerged',
    data: {
      fromEntityIds: fromIds,
      mergedEntityIds,
      aliases: moved.map((a) => ({
        aliasId: a.id,
        mountAccessor: a.mountAccessor,
        name: a.name,
        customMetadata: a.customMetadata,
        createdAt: a.createdAt,
        mergedFromCanonicalIds: a.mergedFromCanonicalIds,
      })),
      removedAliasIds: [...removed],
      mergedAt: cmd.nowMs,
    },
  };
  return {
    target: [target],
    merged: froms.map((f) => ({
      entityId: f.id,
      events: [{ type: 'EntityMergedInto', data: { toEntityId: to.id, mergedAt: cmd.nowMs } }],
    })),
    fromIds,
  };
}
