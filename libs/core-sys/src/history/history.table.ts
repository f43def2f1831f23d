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

/** How far the access index has read a log (its last indexed WAL). */
export interface HistoryIndexHeadsTable {
  log: string;
  wal: number;
}

/**
 * Every event of a policy stream: its WAL, whether the policy existed after it, and the WAL of
 * the stream's next event (null while it is the last): the version held over [wal, next_wal).
 */
export interface HistoryPolicyVersionsTable {
  stream: string;
  wal: number;
  written: boolean;
  next_wal: number | null;
}

/** Every policy stream ever written (the LIST at a time looks each one up). */
export interface HistoryPolicyStreamsTable {
  stream: string;
}

/**
 * Every token ever created: what never changes after TokenCreated (namespace, entity, policies)
 * and the WAL range [created_wal, revoked_wal) during which its stream held it. Token metadata,
 * never the token.
 */
export interface HistoryTokensTable {
  stream: string;
  accessor: string;
  namespace: string;
  entity_id: string;
  /** JSON array of the token's own policy names */
  policies: string;
  created_wal: number;
  revoked_wal: number | null;
}

export interface HistoryDatabase {
  history_index_heads: HistoryIndexHeadsTable;
  history_policy_versions: HistoryPolicyVersionsTable;
  history_policy_streams: HistoryPolicyStreamsTable;
  history_tokens: HistoryTokensTable;
  history_state_snapshots: HistoryStateSnapshotsTable;
  history_merkle_nodes: HistoryMerkleNodesTable;
  history_merkle_heads: HistoryMerkleHeadsTable;
}
