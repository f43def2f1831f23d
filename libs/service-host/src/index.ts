export { runClusterService } from './cluster-service';
export {
  defineEngine,
  routeTableResolver,
  type DevMount,
  type EngineDescriptor,
  type EngineHost,
  type RouteTableSelector,
} from './engine-descriptor';
export { nestLogLevels } from './log-level';
export { parseListenAddress, startOpsServer, type OpsServer } from './ops-server';
export {
  clusterProcessInput,
  clusterProcessSchema,
  serviceAppConfig,
  type ServiceAppConfig,
} from './service.config';
export { ShutdownSequence, runMain, runWithShutdown, type ShutdownLogger } from './shutdown';
