export { runClusterService, type ClusterServiceSpec } from './cluster-service';
export { nestLogLevels } from './log-level';
export { startOpsServer, type OpsServer } from './ops-server';
export {
  clusterProcessInput,
  clusterProcessSchema,
  serviceAppConfig,
  type ServiceAppConfig,
} from './service.config';
export { ShutdownSequence, runMain, runWithShutdown, type ShutdownLogger } from './shutdown';
