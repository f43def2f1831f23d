import { ENGINES } from '@coffer/engines';

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
  /** replicas per engine service, by name; an engine not named runs one */
  replicas?: Readonly<Record<string, number>>;
  /** kv replicas (shorthand for `replicas: { kv }`) */
  kvReplicas?: number;
  maxRequestSize?: number;
  gracefulShutdownWaitSeconds?: number;
  databaseMaxConnections?: number;
  /** plugin_directory (external plugins) */
  pluginDirectory?: string;
  /** replication's cluster listener (purpose "cluster"); default: replication's 127.0.0.1:8201 */
  clusterAddress?: string;
  /** managed mode (HCP-like): managed_namespace_root, e.g. "admin" */
  managedNamespaceRoot?: string;
}

/** Replicas per engine: `replicas`, then `kvReplicas`, then one. */
export function replicaCounts(opts: {
  replicas?: Readonly<Record<string, number>>;
  kvReplicas?: number;
}): Map<string, number> {
  return new Map(
    ENGINES.map((engine) => {
      const fallback = engine.name === 'kv' ? opts.kvReplicas : undefined;
      return [engine.name, opts.replicas?.[engine.name] ?? fallback ?? 1];
    }),
  );
}

const q = (value: string): string => JSON.stringify(value);

export function renderClusterConfig(p: ClusterConfigParams): string {
  const services = [...replicaCounts(p)].map(
    ([name, replicas]) => `service ${q(name)} {\n  replicas = ${replicas}\n}\n`,
  );
  return `# Generated for a local cluster: ${p.clusterName}
cluster_name   = ${q(p.clusterName)}
cluster_secret = ${q(p.clusterSecret)}
${p.pluginDirectory === undefined ? '' : `plugin_directory = ${q(p.pluginDirectory)}\n`}${p.managedNamespaceRoot === undefined ? '' : `managed_namespace_root = ${q(p.managedNamespaceRoot)}\n`}
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
${p.clusterAddress === undefined ? '' : `\nlistener "tcp" {\n  purpose = "cluster"\n  address = ${q(p.clusterAddress)}\n}\n`}
storage "postgresql" {
  connection_url  = ${q(p.databaseUrl)}
  max_connections = ${p.databaseMaxConnections ?? 10}
}

nats {
  url            = ${q(p.natsUrl)}
  subject_prefix = ${q(p.subjectPrefix)}
}

${services.join('\n')}`;
}
