import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';

export interface StoredPlugin {
  type: string;
  name: string;
  version: string;
  /** barrier-encrypted entry */
  entry: Buffer;
}

/** The plugin_catalog table (behind the barrier: the entry is encrypted by the caller). */
@Injectable()
export class PluginCatalogRepository {
  constructor(private readonly db: CoreSysDb) {}

  async upsert(p: StoredPlugin, now: Date): Promise<void> {
    await this.db
      .of()
      .insertInto('plugin_catalog')
      .values({ type: p.type, name: p.name, version: p.version, entry: p.entry, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['type', 'name', 'version']).doUpdateSet({ entry: p.entry, updated_at: now }),
      )
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

  async remove(type: string, name: string, version: string): Promise<void> {
    await this.db
      .of()
      .deleteFrom('plugin_catalog')
      .where('type', '=', type)
      .where('name', '=', name)
      .where('version', '=', version)
      .execute();
  }
}
