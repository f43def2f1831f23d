import { Counter } from 'prom-client';

/**
 * Replication metrics of this process: the primary's cluster listener's TLS-PSK handshakes (by
 * what the connection turned out to carry) and the writes performance secondaries forwarded to it.
 */
export const clusterConnections = new Counter({
  name: 'coffer_replication_cluster_connections_total',
  help: 'Connections the cluster listener accepted after the TLS-PSK handshake, by kind (stream, forwarding, step_down, refused)',
  labelNames: ['kind'] as const,
});

export const forwardedWrites = new Counter({
  name: 'coffer_replication_forwarded_writes_total',
  help: 'Writes performance secondaries forwarded to this primary, by outcome (ok, error, refused)',
  labelNames: ['outcome'] as const,
});
