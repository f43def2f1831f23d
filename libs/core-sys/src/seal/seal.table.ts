export interface SealConfigTable {
  id: number;
  secret_shares: number;
  secret_threshold: number;
  /** the keyring, AES-256-GCM under the root key */
  keyring: Buffer;
  /** the root key, encrypted by the barrier (so any keyring holder can rotate) */
  root_key: Buffer;
  active_term: number;
  cluster_name: string;
  cluster_id: string;
  initialized_at: Date;
  updated_at: Date;
}

export interface SealDatabase {
  seal_config: SealConfigTable;
}
