import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { pluginCatalogMigration } from './migrations/0131_plugin_catalog';
import { pluginStorageMigration } from './migrations/0132_plugin_storage';
import { PluginCatalogHandlers } from './plugin-catalog.handlers';
import { PluginCatalogRepository } from './plugin-catalog.repository';
import { PluginCatalogService } from './plugin-catalog.service';
import { PluginStorageHandlers } from './plugin-storage.handlers';
import { PluginStorageRepository } from './plugin-storage.repository';
import { PluginStorageService } from './plugin-storage.service';
import { PluginSupervisor } from './plugin-supervisor';
import { writerProvider } from '@coffer/event-store';
import { CORE_SYS_EVENT_STORE } from '../core-sys.di';
import { PLUGIN_CATALOG_LOG, PLUGIN_STORAGE_LOG } from './plugin.events';
import {
  PluginCatalogEventLog,
  PluginCatalogProjection,
  PluginStorageEventLog,
  PluginStorageProjection,
} from './plugin.projection';

export const pluginsProviders: Provider[] = [
  PluginCatalogRepository,
  PluginCatalogProjection,
  writerProvider(PluginCatalogEventLog, CORE_SYS_EVENT_STORE, PLUGIN_CATALOG_LOG, PluginCatalogProjection),
  PluginCatalogService,
  PluginStorageRepository,
  PluginStorageProjection,
  writerProvider(PluginStorageEventLog, CORE_SYS_EVENT_STORE, PLUGIN_STORAGE_LOG, PluginStorageProjection),
  PluginStorageService,
  PluginSupervisor,
];
export const pluginsControllers: Type[] = [PluginCatalogHandlers, PluginStorageHandlers];
export const pluginsMigrations: Record<string, Migration> = {
  '0131_plugin_catalog': pluginCatalogMigration,
  '0132_plugin_storage': pluginStorageMigration,
};
export { PluginCatalogService } from './plugin-catalog.service';
export { PluginSupervisor } from './plugin-supervisor';
