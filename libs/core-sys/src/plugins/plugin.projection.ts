import { Inject, Injectable } from '@nestjs/common';
import { AggregateWriter, type AppendedOf, type Projection } from '@coffer/event-store';
import type { CoreSysTrx } from '../core-sys.table';
import { SealService } from '../seal/seal.service';
import type {
  CatalogKey,
  PLUGIN_CATALOG_EVENT_TYPES,
  PLUGIN_STORAGE_EVENT_TYPES,
  StorageKey,
} from './plugin.events';
import { PluginCatalogRepository } from './plugin-catalog.repository';
import { PluginStorageRepository } from './plugin-storage.repository';

type CatalogEvents = typeof PLUGIN_CATALOG_EVENT_TYPES;
type StorageEvents = typeof PLUGIN_STORAGE_EVENT_TYPES;

export const CATALOG_ENTRY_AAD = Buffer.from('coffer/core-sys/plugin-catalog');
export const storageValueAad = (k: StorageKey): Buffer =>
  Buffer.from(`coffer/core-sys/plugin-storage/${k.plugin}/${k.mount}/${k.key}`);

/** The catalog read model: one row per type/name/version, its entry barrier-encrypted. */
@Injectable()
export class PluginCatalogProjection implements Projection<CatalogEvents, void, CatalogKey> {
  constructor(
    private readonly repo: PluginCatalogRepository,
    @Inject(SealService) private readonly seal: Pick<SealService, 'barrier'>,
  ) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<CatalogEvents>[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'PluginRegistered') {
        const entry = this.seal.barrier.encrypt(Buffer.from(JSON.stringify(e.data)), CATALOG_ENTRY_AAD);
        await this.repo.upsert(trx, { ...e.data, entry }, e.recordedAt);
      } else {
        await this.repo.remove(trx, e.data.type, e.data.name, e.data.version);
      }
    }
  }
}

/** Plugins' values, barrier-encrypted, keyed by plugin, mount and key. */
@Injectable()
export class PluginStorageProjection implements Projection<StorageEvents, void, StorageKey> {
  constructor(
    private readonly repo: PluginStorageRepository,
    @Inject(SealService) private readonly seal: Pick<SealService, 'barrier'>,
  ) {}

  async apply(trx: CoreSysTrx, events: AppendedOf<StorageEvents>[]): Promise<void> {
    for (const e of events) {
      if (e.type === 'PluginValuePut') {
        const blob = this.seal.barrier.encrypt(Buffer.from(e.data.value, 'utf8'), storageValueAad(e.data));
        await this.repo.put(trx, e.data, blob, e.recordedAt);
      } else {
        await this.repo.delete(trx, e.data);
      }
    }
  }
}

/** Catalog writes: `append({type, name, version}, 'any', events)` (registering again updates). */
export abstract class PluginCatalogEventLog extends AggregateWriter<CatalogEvents, void, CatalogKey> {}
/** Plugin storage writes: `append({plugin, mount, key}, 'any', events)` (last writer wins). */
export abstract class PluginStorageEventLog extends AggregateWriter<StorageEvents, void, StorageKey> {}
