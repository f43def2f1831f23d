export { runClusterService, unhealthyLogger, type ClusterServiceHosting } from './cluster-service';
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
export {
  parseListenAddress,
  startOpsServer,
  type HealthCheck,
  type OpsRouteHandler,
  type OpsServer,
  type OpsServerOptions,
} from './ops-server';
export { serveOpsMetrics } from './ops-metrics';
export {
  enforceClientCertificates,
  listenerTlsConfig,
  listenerTlsSchema,
  loadListenerTls,
  type ListenerTlsConfig,
  type ListenerTlsOptions,
} from './listener-tls';
export {
  clusterProcessInput,
  clusterProcessSchema,
  serviceAppConfig,
  type ServiceAppConfig,
} from './service.config';
export { ShutdownSequence, runMain, runWithShutdown, type ShutdownLogger } from './shutdown';
