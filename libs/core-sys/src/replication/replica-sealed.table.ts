/**
 * What a secondary keeps of the primary's log beyond its read models, barrier-encrypted by this
 * cluster (aad: the stream): the primary's salts and (DR) its pending wrapped responses.
 */
export interface ReplicaSealedTable {
  /** the primary's stream: `token-salt`, `approle-salt/<mount uuid>`, `wrapped-response/<accessor>` */
  stream: string;
  value: Buffer;
}

export interface ReplicaSealedDatabase {
  replica_sealed: ReplicaSealedTable;
}
