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

  /** Entity names are case-insensitive. */
  async entityByName(name: string): Promise<VersionedEntity | undefined> {
    const row = await this.db
      .of()
      .selectFrom('identity_entities')
      .select('id')
      .where('name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row ? this.entityById(row.id) : undefined;
  }

  async nameTaken(name: string): Promise<boolean> {
    const row = await this.db
      .of()
      .selectFrom('identity_entities')
      .select('id')
      .where('name_key', '=', name.toLowerCase())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Only what a token needs: its entity's policies and whether it is disabled. */
  async standing(id: string): Promise<{ disabled: boolean; policies: string[] } | undefined> {
    return this.db
      .of()
      .selectFrom('identity_entities')
      .select(['disabled', 'policies'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async allEntities(): Promise<EntityState[]> {
    const rows = await this.db
      .of()
      .selectFrom('identity_entities')
      .select(ENTITY_COLUMNS)
      .orderBy('name_key')
      .execute();
    const aliases = await this.db.of().selectFrom('identity_aliases').select(ALIAS_COLUMNS).execute();
    const byEntity = new Map<string, typeof aliases>();
    for (const a of aliases) byEntity.set(a.canonical_id, [...(byEntity.get(a.canonical_id) ?? []), a]);
    return rows.map((r) => rowToEntity(r, byEntity.get(r.id) ?? []).state);
  }

  async aliasById(id: string): Promise<AliasState | undefined> {
    const row = await this.db
      .of()
      .selectFrom('identity_aliases')
      .select(ALIAS_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && rowToAlias(row);
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

  async allAliases(): Promise<AliasState[]> {
    const rows = await this.db
      .of()
      .selectFrom('identity_aliases')
      .select(ALIAS_COLUMNS)
      .orderBy('id')
      .execute();
    return rows.map(rowToAlias);
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
    await this.db.of(trx).deleteFrom('identity_aliases').where('canonical_id', '=', id).execute();
    await this.db.of(trx).deleteFrom('identity_entities').where('id', '=', id).execute();
  }
}
