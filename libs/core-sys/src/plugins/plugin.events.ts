import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * The plugin catalog (one stream per registered type/name/version) and external plugins' stored
 * values (one stream per plugin, mount and key). The event log is barrier-encrypted by the store.
 */

export interface CatalogKey {
  type: string;
  name: string;
  version: string;
}
export const catalogStream = (k: CatalogKey): string => `plugin-catalog/${k.type}/${k.name}/${k.version}`;

export const pluginRegisteredV1 = z.object({
  type: z.string(),
  name: z.string(),
  version: z.string(),
  sha256: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.array(z.string()),
});
export const pluginRemovedV1 = z.object({ type: z.string(), name: z.string(), version: z.string() });

export const PLUGIN_CATALOG_EVENT_TYPES = {
  registered: { name: 'PluginRegistered', version: 1, schema: pluginRegisteredV1 },
  removed: { name: 'PluginRemoved', version: 1, schema: pluginRemovedV1 },
} as const;
export type PluginCatalogEvent = EventOf<typeof PLUGIN_CATALOG_EVENT_TYPES>;

export const PLUGIN_CATALOG_LOG = defineAggregateLog({
  description: 'a plugin catalog event',
  events: PLUGIN_CATALOG_EVENT_TYPES,
  stream: catalogStream,
});

export interface StorageKey {
  plugin: string;
  mount: string;
  key: string;
}
export const pluginStorageStream = (k: StorageKey): string =>
  `plugin-storage/${k.mount}/${k.plugin}/${k.key}`;

export const pluginValuePutV1 = z.object({
  plugin: z.string(),
  mount: z.string(),
  key: z.string(),
  value: z.string(),
});
export const pluginValueDeletedV1 = z.object({ plugin: z.string(), mount: z.string(), key: z.string() });

export const PLUGIN_STORAGE_EVENT_TYPES = {
  put: { name: 'PluginValuePut', version: 1, schema: pluginValuePutV1 },
  deleted: { name: 'PluginValueDeleted', version: 1, schema: pluginValueDeletedV1 },
} as const;
export type PluginStorageEvent = EventOf<typeof PLUGIN_STORAGE_EVENT_TYPES>;

export const PLUGIN_STORAGE_LOG = defineAggregateLog({
  description: 'a plugin storage event',
  events: PLUGIN_STORAGE_EVENT_TYPES,
  stream: pluginStorageStream,
});
