import { Injectable } from '@nestjs/common';
import { CoreSysDb, type CoreSysTrx } from '../core-sys.table';
import type { StorageKey } from './plugin.events';

/** The plugin_storage read model (values encrypted by the projection). */
@Injectable()
export class PluginStorageRepository {
  constructor(private readonly db: CoreSysDb) {}

  async get(k: StorageKey): Promise<Buffer | undefined> {
    const row = await this.db
      .of()
      .selectFrom('plugin_storage')
      .select('value')
      .where('plugin', '=', k.plugin)
      .where('mount', '=', k.mount)
      .where('key', '=', k.key)
      .executeTakeFirst();
    return row ? Buffer.from(row.value) : undefined;
  }

  async put(trx: CoreSysTrx, k: StorageKey, value: Buffer, now: Date): Promise<void> {
    await this.db
      .of(trx)
      .insertInto('plugin_storage')
      .values({ plugin: k.plugin, mount: k.mount, key: k.key, value, updated_at: now })
      .onConflict((oc) => oc.columns(['plugin', 'mount', 'key']).doUpdateSet({ value, updated_at: now }))
      .execute();
  }

  async delete(trx: CoreSysTrx, k: StorageKey): Promise<void> {
    await this.db
      .of(trx)
      .deleteFrom('plugin_storage')
      .where('plugin', '=', k.plugin)
      .where('mount', '=', k.mount)
      .where('key', '=', k.key)
      .execute();
  }

  async keys(plugin: string, mount: string, prefix: string): Promise<string[]> {
    const rows = await this.db
      .of()
      .selectFrom('plugin_storage')
      .select('key')
      .where('plugin', '=', plugin)
      .where('mount', '=', mount)
      .where('key', 'like', `${prefix.replace(/[\\%_]/g, '\\$&')}%`)
      .orderBy('key')
      .execute();
    return rows.map((r) => r.key);
  }

  /** Every key a mount's plugin data holds (purged when the mount is disabled). */
  async mountKeys(mount: string): Promise<StorageKey[]> {
    return this.db
      .of()
      .selectFrom('plugin_storage')
      .select(['plugin', 'mount', 'key'])
      .where('mount', '=', mount)
      .execute();
  }
}
