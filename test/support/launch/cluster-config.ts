/**
 * Renders a cluster-mode server config file (HCL) for local runs: the end-to-end harness and
 * the bench write one per cluster; deploy/local/cluster.hcl is the hand-written equivalent.
 */
export interface ClusterConfigParams {
  clusterName: string;
  apiAddress: string;
  opsAddress: string;
  databaseUrl: string;
  natsUrl: string;
  subjectPrefix: string;
  clusterSecret: string;
  kvReplicas: number;
  maxRequestSize?: number;
  gracefulShutdownWaitSeconds?: number;
  databaseMaxConnections?: number;
}

const q = (value: string): string => JSON.stringify(value);

export function renderClusterConfig(p: ClusterConfigParams): string {
  return `# Generated for a local cluster: ${p.clusterName}
cluster_name   = ${q(p.clusterName)}
cluster_secret = ${q(p.clusterSecret)}

controller {
  graceful_shutdown_wait_duration = "${p.gracefulShutdownWaitSeconds ?? 0}s"
}

listener "tcp" {
  purpose          = "api"
  address          = ${q(p.apiAddress)}
  tls_disable      = true
  max_request_size = ${p.maxRequestSize ?? 33554432}
}

listener "tcp" {
  purpose     = "ops"
  address     = ${q(p.opsAddress)}
  tls_disable = true
}

storage "postgresql" {
  connection_url  = ${q(p.databaseUrl)}
  max_connections = ${p.databaseMaxConnections ?? 10}
}

nats {
  url            = ${q(p.natsUrl)}
  subject_prefix = ${q(p.subjectPrefix)}
}

service "core-sys" {
  replicas = 1
}

service "kv" {
  replicas = ${p.kvReplicas}
}
`;
}
