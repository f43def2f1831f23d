import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the kv service (schema "kv"). Paths use the "C" collation so that index order is
 * byte order, which listing relies on. Times are unix milliseconds. Secret data lives only as
 * ciphertext under a per-version data key; data keys live only in `data_keys`, wrapped by the
 * barrier: deleting a data_keys row is what destroys data (crypto-shredding).
 */
export interface Kv2ConfigTable {
  mount_uuid: string;
  max_versions: number;
  cas_required: boolean;
  /** seconds; 0 unset, -1 disabled */
  delete_version_after: number;
  stream_version: number;
}

export interface Kv2KeysTable {
  mount_uuid: string;
  path: string;
  current_version: number;
  oldest_version: number;
  max_versions: number;
  cas_required: boolean;
  delete_version_after: number;
  /** barrier-encrypted JSON of the custom metadata, null when none */
  custom_metadata: Buffer | null;
  created_ms: number;
  updated_ms: number;
  /** version of the key's stream this row reflects (optimistic concurrency of the next append) */
  stream_version: number;
}

export interface Kv2VersionsTable {
  mount_uuid: string;
  path: string;
  version: number;
  created_ms: number;
  deletion_ms: number | null;
  destroyed: boolean;
  /** null once destroyed */
  key_id: string | null;
  /** data under the version's data key; null once destroyed */
  ciphertext: Buffer | null;
}

/** kv v1 (owner "") and cubbyhole (owner = token ref) secrets. */
export interface FlatSecretsTable {
  mount_uuid: string;
  owner: string;
  path: string;
  key_id: string;
  ciphertext: Buffer;
  stream_version: number;
}

export interface DataKeysTable {
  key_id: string;
  mount_uuid: string;
  /** "" for kv, the token ref for cubbyhole (purged with the token) */
  owner: string;
  /** the AES-256 data key encrypted by the barrier */
  wrapped: Buffer;
}

export interface KvDatabase {
  kv2_config: Kv2ConfigTable;
  kv2_keys: Kv2KeysTable;
  kv2_versions: Kv2VersionsTable;
  flat_secrets: FlatSecretsTable;
  data_keys: DataKeysTable;
}

/** kv's typed view of the shared pool: what every kv repository and projection queries. */
export class KvDb extends ServiceDb<KvDatabase> {}

/** A projection's transaction, typed. */
export type KvTrx = Transaction<KvDatabase>;

/*
 * Primary keys as migration 0001 names them (Postgres' default name for kv2_config's). A key's
 * first append inserts its read-model row: two writers creating the same key at once make the
 * loser's insert violate one of these, which the writer retries from a fresh read (StreamWriter).
 */
export const KV2_KEYS_PK = 'kv2_keys_pk';
export const FLAT_SECRETS_PK = 'flat_secrets_pk';
export const KV2_CONFIG_PK = 'kv2_config_pkey';
export const KV_CREATION_CONSTRAINTS = [KV2_KEYS_PK, FLAT_SECRETS_PK, KV2_CONFIG_PK] as const;

/** Tables whose rows hold (wrapped) key material or ciphertext: vacuumed after a shred. */
export const SHREDDED_TABLES = ['data_keys', 'kv2_versions', 'flat_secrets'] as const;
