export { replicationEngine, DEFAULT_CLUSTER_ADDRESS } from './replication.engine';
export { merkleRoot, totalWal, type SourceHead } from './wal/merkle';
