export interface PluginStorageTable {
  plugin: string;
  /** the mount's uuid: each mount keeps its own data */
  mount: string;
  key: string;
  /** barrier-encrypted */
  value: Buffer;
  updated_at: Date;
}

export interface PluginStorageDatabase {
  plugin_storage: PluginStorageTable;
}
