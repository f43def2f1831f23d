import type { Migration } from 'kysely';
import { coreSysReplicaLog0190 } from './migrations/0190_core_sys_replica_log';

export { coreSysReplicaProvider, CORE_SYS_REPLICA_SCHEMA } from './core-sys.replay';

export const replicationMigrations: Record<string, Migration> = {
  '0190_core_sys_replica_log': coreSysReplicaLog0190,
};
