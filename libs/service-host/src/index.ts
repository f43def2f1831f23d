export { runClusterService, type ClusterServiceHosting } from './cluster-service';
export {
  defineEngine,
  mountCatalogueOf,
  routeTableResolver,
  type DevMount,
  type EngineDescriptor,
  type EngineHost,
  type MountTypeDeclaration,
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
