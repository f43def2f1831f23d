/** One live core-sys process (its last heartbeat). */
export interface HaNodesTable {
  node_id: string;
  hostname: string;
  api_address: string;
  cluster_address: string;
  version: string;
  /** holds the seal leadership (Vault's active node) */
  active: boolean;
  last_echo: Date;
}

export interface HaStatusDatabase {
  ha_nodes: HaNodesTable;
}
