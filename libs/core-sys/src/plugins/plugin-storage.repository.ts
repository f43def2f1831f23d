import { Injectable } from '@nestjs/common';
import { CoreSysDb } from '../core-sys.table';

/** The plugin_storage table (values encrypted by the caller). */
@Injectable()
export class PluginStorageRepository {
  constructor(private readonly db: CoreSysDb) {}

  async get(plugin: string, mount: string, key: string): Promise<Buffer | undefined> {
    const row = await this.db
      .of()
      .selectFrom('plugin_storage')
      .select('value')
      .where('plugin', '=', plugin)
      .where('mount', '=', mount)
      .where('key', '=', key)
      .executeTakeFirst();
    return row ? Buffer.from(row.value) : undefined;
  }

  async put(plugin: string, mount: string, key: string, value: Buffer, now: Date): Promise<void> {
    await this.db
      .of()
      .insertInto('plugin_storage')
      .values({ plugin, mount, key, value, updated_at: now })
      .onConflict((oc) => oc.columns(['plugin', 'mount', 'key']).doUpdateSet({ value, updated_at: now }))
      .execute();
  }

  async delete(plugin: string, mount: string, key: string): Promise<void> {
    await this.db
      .of()
      .deleteFrom('plugin_storage')
      .where('plugin', '=', plugin)
      .where('mount', '=', mount)
      .where('key', '=', key)
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
}
