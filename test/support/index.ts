export { api, type ApiClient, type ApiResponse, type ApiRequestOptions } from './api';
export { startDevServer, type DevServer } from './dev-server';
export { startCluster, type Cluster, type ClusterOptions } from './test-cluster';
export { startTarget, TARGETS, START_TIMEOUT_MS, type Target, type TargetKind } from './targets';
export { uniq, searchDatabaseText, searchFilesForBytes, encodings } from './helpers';
export { rawRequest, type RawResponse, type RawRequestOptions } from './raw-http';
export type { ManagedProcess } from '@coffer/testing';
export { responseStatuses, socketExchange, wireRequest } from './raw-socket';
export { authorize, exchange, pkcePair, userinfo, type OidcClientCreds } from './oidc-flow';
export { expectStatus, OIDC_REDIRECT, setUpOidc, type OidcFixture } from './oidc-fixture';
export {
  startOtlpReceiver,
  decodeExport,
  SPAN_KIND,
  STATUS,
  type OtlpReceiver,
  type ReceivedSpan,
} from './otlp-receiver';
export { parsePrometheusText, type PromExposition, type PromSample } from './prometheus-text';
export { cliRunner, COFFER_BIN, type CliRun, type CliRunner, type CliRunOptions } from './cli-runner';
export { startExtraGateway, type ExtraGateway } from './extra-gateway';
export {
  activateSecondary,
  readAtIndex,
  replicasInSync,
  replicationStatus,
  startReplicatingDevServer,
  type ReplicationMode,
  type ReplicationStatus,
} from './replication';
