export interface PluginCatalogTable {
  type: string;
  name: string;
  /** "" when unversioned */
  version: string;
  /** {sha256, command, args, env} as JSON, barrier-encrypted (env may hold secrets) */
  entry: Buffer;
  updated_at: Date;
}

export interface PluginCatalogDatabase {
  plugin_catalog: PluginCatalogTable;
}
