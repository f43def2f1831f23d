import type { Migration } from 'kysely';
import { coreSysReplicaLog0190 } from './migrations/0190_core_sys_replica_log';
import { replicaSalts0195 } from './migrations/0195_replica_salts';
import { ReplicaSaltRepository } from './replica-salt.repository';

export { coreSysReplicaProvider, CORE_SYS_REPLICA_SCHEMA } from './core-sys.replay';
export { ReplicaSaltRepository };

export const replicationProviders = [ReplicaSaltRepository];

export const replicationMigrations: Record<string, Migration> = {
  '0190_core_sys_replica_log': coreSysReplicaLog0190,
  '0195_replica_salts': replicaSalts0195,
};
