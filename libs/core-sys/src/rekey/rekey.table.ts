export interface RekeyBackupTable {
  id: number;
  /** {nonce, keys: {fingerprint: [hex]}} as JSON, barrier-encrypted */
  backup: Buffer;
  created_at: Date;
}

export interface RekeyDatabase {
  rekey_backup: RekeyBackupTable;
}
