import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';

export interface StoredPlugin {
  type: string;
  name: string;
  version: string;
  /** barrier-encrypted entry */
  entry: Buffer;
}

/** The plugin_catalog read model (the entry is encrypted by the projection). */
@Injectable()
export class PluginCatalogRepository {
  constructor(private readonly db: CoreSysDb) {}

  async upsert(trx: CoreSysTrx, p: StoredPlugin, now: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('plugin_catalog')
      .values({ type: p.type, name: p.name, version: p.version, entry: p.entry, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['type', 'name', 'version']).doUpdateSet({ entry: p.entry, updated_at: now }),
      )
      .execute();
  }

  async remove(trx: CoreSysTrx, type: string, name: string, version: string): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('plugin_catalog')
      .where('type', '=', type)
      .where('name', '=', name)
      .where('version', '=', version)
      .execute();
  }

  async all(): Promise<StoredPlugin[]> {
    const rows = await this.db
      .of()
      .selectFrom('plugin_catalog')
      .select(['type', 'name', 'version', 'entry'])
      .orderBy('type')
      .orderBy('name')
      .orderBy('version')
      .execute();
    return rows.map((r) => ({ ...r, entry: Buffer.from(r.entry) }));
  }

  async named(type: string, name: string): Promise<StoredPlugin[]> {
    const rows = await this.db
      .of()
      .selectFrom('plugin_catalog')
      .select(['type', 'name', 'version', 'entry'])
      .where('type', '=', type)
      .where('name', '=', name)
      .execute();
    return rows.map((r) => ({ ...r, entry: Buffer.from(r.entry) }));
  }

  async exists(type: string, name: string, version: string): Promise<boolean> {
    const row = await this.db
      .of()
      .selectFrom('plugin_catalog')
      .select('name')
      .where('type', '=', type)
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    return row !== undefined;
  }
}
