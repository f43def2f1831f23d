import type { Transaction } from 'kysely';
import { ServiceDb } from '@coffer/event-store';

/**
 * Read model of the ssh service (schema "ssh"). Every value that is or may hold a secret (CA and
 * admin private keys, the OTP salt) is barrier-encrypted; roles ride along in the same table.
 */
export interface RecordsTable {
  mount_uuid: string;
  /** "role" | "key" | "ca" | "zeroaddress" | "salt" */
  kind: string;
  name: string;
  /** barrier-encrypted JSON of the value */
  body: Buffer;
  stream_version: number;
}

/** Issued, unused OTPs, by salted hash (the OTP itself is never stored). */
export interface OtpsTable {
  mount_uuid: string;
  hash: string;
  username: string;
  ip: string;
  role_name: string;
  stream_version: number;
}

export interface SshDatabase {
  records: RecordsTable;
  otps: OtpsTable;
}

export class SshDb extends ServiceDb<SshDatabase> {}
export type SshTrx = Transaction<SshDatabase>;

export const RECORDS_PK = 'ssh_records_pk';
export const OTPS_PK = 'ssh_otps_pk';
