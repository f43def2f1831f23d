/** The primary's salts on a secondary, barrier-encrypted by this cluster (aad: the stream). */
export interface ReplicaSaltsTable {
  /** the primary's stream of the salt: `token-salt`, `approle-salt/<mount uuid>` */
  stream: string;
  salt: Buffer;
}

export interface ReplicaSaltsDatabase {
  replica_salts: ReplicaSaltsTable;
}
