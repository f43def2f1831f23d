import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
import { pluginCatalogMigration } from './migrations/0131_plugin_catalog';
import { PluginCatalogHandlers } from './plugin-catalog.handlers';
import { PluginCatalogRepository } from './plugin-catalog.repository';
import { PluginCatalogService } from './plugin-catalog.service';

export const pluginsProviders: Provider[] = [PluginCatalogRepository, PluginCatalogService];
export const pluginsControllers: Type[] = [PluginCatalogHandlers];
export const pluginsMigrations: Record<string, Migration> = {
  '0131_plugin_catalog': pluginCatalogMigration,
};
