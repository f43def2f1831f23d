import type { ColumnType } from 'kysely';

export interface NamespacesTable {
  /** full path with its trailing slash: "ns1/", "ns1/ns2/" */
  path: string;
  id: string;
  /** jsonb: written as a JSON string, read back as an object */
  custom_metadata: ColumnType<Record<string, string>, string, string>;
  /** deletion started: the namespace answers nothing until it is gone */
  deleting: ColumnType<boolean, boolean | undefined, boolean>;
  /** API locked: SHA-256 (hex) of the unlock key; null when unlocked */
  unlock_key_hash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: ColumnType<Date, Date, never>;
}

export interface NamespaceTreeRevisionTable {
  id: number;
  revision: number;
}

export interface NamespacesDatabase {
  namespaces: NamespacesTable;
  namespace_tree_revision: NamespaceTreeRevisionTable;
}
