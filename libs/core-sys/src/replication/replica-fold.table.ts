/**
 * How far a promoted cluster folded the replica log into its own log (replica-fold.service.ts):
 * per stream, the former primary's version folded up to (a stream without a row was written by
 * this cluster itself and is not folded), and the replica WAL the fold went through.
 */
export interface ReplicaFoldedTable {
  /** the stream, the same name in the replica log and in this cluster's own log */
  stream: string;
  /** the former primary's version of the stream folded up to */
  version: number;
}

export interface ReplicaFoldPositionTable {
  id: number;
  /** the last replica WAL folded (0: none) */
  through_wal: number;
}

export interface ReplicaFoldDatabase {
  replica_folded: ReplicaFoldedTable;
  replica_fold_position: ReplicaFoldPositionTable;
}
