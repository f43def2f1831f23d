import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the directory service (schema "directory"): one row per config, role, library
 * set and library account, its state barrier-encrypted (bind and account passwords live there).
 * `due_at` (a role's next rotation, an account awaiting its first password) and `pending_since`
 * (a password change announced but not confirmed) are in clear for the rotation sweep.
 */
export interface RecordsTable {
  mount_uuid: string;
  /** "config" | "role" | "set" | "account" */
  kind: string;
  name: string;
  body: Buffer;
  stream_version: number;
  due_at: Date | null;
  pending_since: Date | null;
}

export interface DirectoryDatabase {
  records: RecordsTable;
}

export class DirectoryDb extends ServiceDb<DirectoryDatabase> {}
export type DirectoryTrx = Transaction<DirectoryDatabase>;

export const RECORDS_PK = 'directory_records_pk';
