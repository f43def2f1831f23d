import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * A row of a mount type's read model in the cloud-creds schema (`cloud_a_records`,
 * `cloud_b_records`, the same shape): one row per record of a mount (config, role, issued
 * credential...), its state barrier-encrypted. `recover_at` is in clear for the recovery pass: when
 * the record has outside work to look at (a creation past its deadline, a lease to check...).
 */
export interface CloudRecordsTable {
  mount_uuid: string;
  /** the mount type's record kind ("config", "role", "cred", "user"...) */
  kind: string;
  name: string;
  body: Buffer;
  stream_version: number;
  recover_at: Date | null;
}

export interface CloudCredsDatabase {
  cloud_a_records: CloudRecordsTable;
  cloud_b_records: CloudRecordsTable;
}
export type CloudRecordsTableName = keyof CloudCredsDatabase;

export class CloudCredsDb extends ServiceDb<CloudCredsDatabase> {}
export type CloudCredsTrx = Transaction<CloudCredsDatabase>;
