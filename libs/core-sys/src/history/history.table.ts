/**
 * The Merkle index of the event logs (derived from them, never the source of truth: dropping
 * these rows loses nothing, the indexer rebuilds them from the logs).
 */
export interface HistoryMerkleNodesTable {
  /** the log's schema ("core_sys", "kv", ...) */
  log: string;
  /** perfect subtree of 2^level leaves; only levels >= MERKLE_STORED_LEVEL are kept */
  level: number;
  /** first leaf / 2^level */
  idx: number;
  hash: Buffer;
}

/** How far the index has read each log, and the tree's right edge at that size. */
export interface HistoryMerkleHeadsTable {
  log: string;
  size: number;
  /** MerkleFrontier.serialize() at `size` */
  frontier: Buffer;
  updated_at: Date;
}

/** A core_sys stream's state folded up to a version (state at a time replays from the nearest one). */
export interface HistoryStateSnapshotsTable {
  stream: string;
  version: number;
  /** JSON of the folded state (the mount table: no secrets) */
  state: string;
}

export interface HistoryDatabase {
  history_state_snapshots: HistoryStateSnapshotsTable;
  history_merkle_nodes: HistoryMerkleNodesTable;
  history_merkle_heads: HistoryMerkleHeadsTable;
}
