import { replicationRoutes } from '@coffer/contracts/replication';
import { defineEngine } from '@coffer/service-host';
import { replicationMigrations } from './migrations';
import { REPLICATION_SCHEMA } from './replication.di';
import { ReplicationModule } from './replication.module';

/** Where a cluster listens for its secondaries when nothing is configured (Vault's 8201). */
export const DEFAULT_CLUSTER_ADDRESS = '127.0.0.1:8201';

/**
 * The replication service: Vault Enterprise's DR and performance replication, streamed from the
 * services' event logs. It owns no mount type: its routes extend core-sys's builtin sys/ mount
 * (sys/replication/*).
 */
export const replicationEngine = defineEngine({
  name: 'replication',
  summary: 'DR and performance replication between clusters (sys/replication)',
  schema: REPLICATION_SCHEMA,
  migrations: replicationMigrations,
  cipher: 'keyring',
  module: (runtime, host) =>
    ReplicationModule.register(runtime, {
      apiAddr: host.apiAddr,
      clusterAddr: host.cluster?.listen ?? DEFAULT_CLUSTER_ADDRESS,
      advertisedClusterAddr: host.cluster?.advertise ?? host.cluster?.listen ?? DEFAULT_CLUSTER_ADDRESS,
      instanceId: host.instanceId,
    }),
  mountTypes: {},
  routeExtensions: { system: () => replicationRoutes },
  devMounts: [],
  // sys/ is mounted everywhere; the status route is unauthenticated and always answers
  readinessPath: 'sys/replication/dr/status',
  // one replica: the cluster listener and the secondary's stream are per cluster
  deploy: { replicas: 1 },
});
