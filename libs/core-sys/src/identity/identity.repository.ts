import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { AliasState, EntityState } from './identity.decider';
import {
  ALIAS_COLUMNS,
  aliasToRow,
  ENTITY_COLUMNS,
  entityToRow,
  rowToAlias,
  rowToEntity,
  type VersionedEntity,
} from './identity.table';

/** All SQL of the identity read model. */
@Injectable()
export class IdentityRepository {
  constructor(private readonly db: CoreSysDb) {}

  async entityById(id: string, trx?: CoreSysTrx): Promise<VersionedEntity | undefined> {
    const row = await this.db
      .of(trx)
      .selectFrom('identity_entities')
      .select(ENTITY_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const aliases = await this.db
      .of(trx)
      .selectFrom('identity_aliases')
      .select(ALIAS_COLUMNS)
      .where('canonical_id', '=', id)
      .execute();
    return rowToEntity(row, aliases);
  }

  /**
   * The entity with this id if it belongs to `namespace`: an entity of another namespace is
   * invisible there, as if it did not exist (Vault compares entity.NamespaceID).
   */
  async entityIn(namespace: string, id: string): Promise<VersionedEntity | undefined> {
    const found = await this.entityById(id);
    return found?.state.namespace === namespace ? found : undefined;
  }

  /** Entity names are case-insensitive and unique within their namespace. */
  async entityByName(namespace: string, name: string): Promise<VersionedEntity | undefined> {
    const row = await this.db
      .of()
      .selectFrom('identity_entities')
      .select('id')
      .where('namespace', '=', namespace)
      .where('name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row ? this.entityById(row.id) : undefined;
  }

  async nameTaken(namespace: string, name: string): Promise<boolean> {
    return (await this.entityByName(namespace, name)) !== undefined;
  }

  /** The ids of a namespace's entities (deleting the namespace deletes them). */
  async entityIdsOf(namespace: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('identity_entities')
      .select('id')
      .where('namespace', '=', namespace)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Only what a token needs: its entity's policies and whether it is disabled. A token of an
   * entity merged away acts as the entity it was merged into (Vault's MemDBEntityByMergedEntityID).
   */
  async standing(id: string): Promise<{ id: string; disabled: boolean; policies: string[] } | undefined> {
    const own = await this.db
      .of()
      .selectFrom('identity_entities')
      .select(['id', 'disabled', 'policies'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (own) return own;
    return this.db
      .of()
      .selectFrom('identity_merged_entities as m')
      .innerJoin('identity_entities as e', 'e.id', 'm.entity_id')
      .select(['e.id', 'e.disabled', 'e.policies'])
      .where('m.merged_id', '=', id)
      .executeTakeFirst();
  }

  /** The entity `id` names now: itself, or the one it was merged into. */
  async currentEntityId(id: string): Promise<string | undefined> {
    return (await this.standing(id))?.id;
  }

  /** Which of these ids are entities (of any namespace: a group may hold them all). */
  async existingEntityIds(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .of()
      .selectFrom('identity_entities')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  async allEntities(namespace: string): Promise<EntityState[]> {
    const rows = await this.db
      .of()
      .selectFrom('identity_entities')
      .select(ENTITY_COLUMNS)
      .where('namespace', '=', namespace)
      .orderBy('name_key')
      .execute();
    const aliases = await this.aliasesOf(namespace);
    const byEntity = new Map<string, typeof aliases>();
    for (const a of aliases) byEntity.set(a.canonical_id, [...(byEntity.get(a.canonical_id) ?? []), a]);
    return rows.map((r) => rowToEntity(r, byEntity.get(r.id) ?? []).state);
  }

  /** The alias if its entity belongs to `namespace` (aliases live in their entity's namespace). */
  async aliasById(namespace: string, id: string): Promise<AliasState | undefined> {
    const row = await this.db
      .of()
      .selectFrom('identity_aliases as a')
      .innerJoin('identity_entities as e', 'e.id', 'a.canonical_id')
      .select(ALIAS_COLUMNS.map((c) => `a.${c}` as const))
      .where('a.id', '=', id)
      .where('e.namespace', '=', namespace)
      .executeTakeFirst();
    return row && rowToAlias(row);
  }

  private aliasesOf(namespace: string) {
    return this.db
      .of()
      .selectFrom('identity_aliases as a')
      .innerJoin('identity_entities as e', 'e.id', 'a.canonical_id')
      .select(ALIAS_COLUMNS.map((c) => `a.${c}` as const))
      .where('e.namespace', '=', namespace)
      .orderBy('a.id')
      .execute();
  }

  async aliasByFactors(mountAccessor: string, name: string): Promise<AliasState | undefined> {
    const row = await this.db
      .of()
      .selectFrom('identity_aliases')
      .select(ALIAS_COLUMNS)
      .where('mount_accessor', '=', mountAccessor)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && rowToAlias(row);
  }

  async allAliases(namespace: string): Promise<AliasState[]> {
    return (await this.aliasesOf(namespace)).map(rowToAlias);
  }

  // --- projection writes (inside the append transaction) ---

  async saveEntity(
    trx: CoreSysTrx,
    before: EntityState | null,
    after: EntityState,
    version: number,
  ): Promise<void> {
    const row = entityToRow(after, version);
    if (before) {
      const { id: _id, ...rest } = row;
      await this.db.of(trx).updateTable('identity_entities').set(rest).where('id', '=', after.id).execute();
    } else {
      await this.db.of(trx).insertInto('identity_entities').values(row).execute();
    }
    const kept = new Set(after.aliases.map((a) => a.id));
    for (const gone of before?.aliases ?? []) {
      if (kept.has(gone.id)) continue;
      // A moved alias already belongs to its new entity: leave that row alone.
      await this.db
        .of(trx)
        .deleteFrom('identity_aliases')
        .where('id', '=', gone.id)
        .where('canonical_id', '=', after.id)
        .execute();
    }
    for (const merged of after.mergedEntityIds) {
      await this.db
        .of(trx)
        .insertInto('identity_merged_entities')
        .values({ merged_id: merged, entity_id: after.id })
        .onConflict((oc) => oc.column('merged_id').doUpdateSet({ entity_id: after.id }))
        .execute();
    }
    for (const alias of after.aliases) {
      const { id: _id, ...rest } = aliasToRow(alias);
      await this.db
        .of(trx)
        .insertInto('identity_aliases')
        .values(aliasToRow(alias))
        .onConflict((oc) => oc.column('id').doUpdateSet(rest))
        .execute();
    }
  }

  async deleteEntity(trx: CoreSysTrx, id: string): Promise<void> {
    await this.db.of(trx).deleteFrom('identity_merged_entities').where('entity_id', '=', id).execute();
    await this.db.of(trx).deleteFrom('identity_aliases').where('canonical_id', '=', id).execute();
    await this.db.of(trx).deleteFrom('identity_entities').where('id', '=', id).execute();
  }
}
