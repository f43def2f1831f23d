import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the replication service (schema "replication"). The state of each mode: what
 * status shows in clear (no secrets), the pre-shared keys and key pair sealed by the barrier.
 */
export interface ReplicationStateTable {
  mode: string;
  /** JSON of the mode's state without secrets (status is served from it, also while sealed) */
  public_state: string;
  /** barrier-encrypted JSON of the secrets: pre-shared keys, the key pair */
  secrets: Buffer;
  stream_version: number;
}

/**
 * A secondary's copy of the primary's event logs: every row exactly as the primary stored it
 * (payload still barrier-encrypted, the primary's WAL number and chain hash).
 */
export interface ReplicaLogTable {
  mode: string;
  /** the primary service's schema the row comes from ("kv", "core_sys", ...) */
  source: string;
  wal: number;
  stream: string;
  stream_version: number;
  type: string;
  schema_version: number;
  payload: Buffer;
  recorded_at: Date;
  hash: string;
}

/** How far a secondary has applied each of the primary's logs; written with the rows it covers. */
export interface ReplicaPositionsTable {
  mode: string;
  source: string;
  last_wal: number;
  hash: string;
}

/**
 * Barrier keyrings received from primaries (each sealed by this cluster's barrier): the rows a
 * secondary replayed keep the primary's ciphertext, so this cluster, once a primary itself,
 * opens them with these and hands them on to its own secondaries.
 */
export interface ReplicaKeyringsTable {
  /** hex SHA-256 of the serialized keyring */
  fingerprint: string;
  sealed: Buffer;
  received_at: Date;
}

export interface ReplicationDatabase {
  replica_keyrings: ReplicaKeyringsTable;
  replication_state: ReplicationStateTable;
  replica_log: ReplicaLogTable;
  replica_positions: ReplicaPositionsTable;
}

export class ReplicationDb extends ServiceDb<ReplicationDatabase> {}
export type ReplicationTrx = Transaction<ReplicationDatabase>;
