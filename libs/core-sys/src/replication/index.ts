import type { Migration } from 'kysely';
import { coreSysReplicaLog0190 } from './migrations/0190_core_sys_replica_log';
import { replicaSealed0195 } from './migrations/0195_replica_sealed';
import { replicaFold0199 } from './migrations/0199_replica_fold';
import { ReplicaFoldHandlers } from './replica-fold.handlers';
import { ReplicaFoldRepository } from './replica-fold.repository';
import { ReplicaFoldService } from './replica-fold.service';
import { ReplicaSealedRepository } from './replica-sealed.repository';

export { coreSysReplicaProvider, CORE_SYS_REPLICA_SCHEMA } from './core-sys.replay';
export { ReplicaSealedRepository };

export const replicationProviders = [ReplicaSealedRepository, ReplicaFoldRepository, ReplicaFoldService];
export const replicationControllers = [ReplicaFoldHandlers];

export const replicationMigrations: Record<string, Migration> = {
  '0190_core_sys_replica_log': coreSysReplicaLog0190,
  '0195_replica_sealed': replicaSealed0195,
  '0199_replica_fold': replicaFold0199,
};
