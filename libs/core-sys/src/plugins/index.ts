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

export const pluginsProviders: Provider[] = [
  PluginCatalogRepository,
  PluginCatalogService,
  PluginStorageRepository,
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
