import type { ColumnType } from 'kysely';

export interface MountsTable {
  uuid: string;
  path: string;
  table_kind: string;
  type: string;
  description: string;
  accessor: string;
  /** jsonb: written as a JSON string, read back as an object */
  options: ColumnType<Record<string, string>, string, string>;
  default_lease_ttl: number;
  max_lease_ttl: number;
  force_no_cache: boolean;
  listing_visibility: string;
  token_type: string;
  /** jsonb string arrays */
  audit_non_hmac_request_keys: ColumnType<string[], string, string>;
  audit_non_hmac_response_keys: ColumnType<string[], string, string>;
  local: boolean;
  seal_wrap: boolean;
  external_entropy_access: boolean;
  tainted: ColumnType<boolean, boolean | undefined, boolean>;
  enabled_at: ColumnType<Date, Date, never>;
  /** "" = root */
  namespace: ColumnType<string, string | undefined, string>;
}

export interface MountTableRevisionTable {
  id: number;
  revision: number;
}

/** sys/remount's migrations, by id. */
export interface MountMigrationsTable {
  migration_id: string;
  mount_uuid: string;
  source_namespace: string;
  source_path: string;
  target_namespace: string;
  target_path: string;
  /** "in-progress", "success" or "failure" */
  status: string;
  started_at: ColumnType<Date, Date, never>;
}

export interface MountsDatabase {
  mounts: MountsTable;
  mount_table_revision: MountTableRevisionTable;
  mount_migrations: MountMigrationsTable;
}
