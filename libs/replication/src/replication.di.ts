/** Nest injection tokens of the replication service. */
export const REPLICATION_RUNTIME = Symbol('REPLICATION_RUNTIME');
export const REPLICATION_EVENT_STORE = Symbol('REPLICATION_EVENT_STORE');
export const REPLICATION_OPTIONS = Symbol('REPLICATION_OPTIONS');

/** The replication service's own Postgres schema (never replicated itself). */
export const REPLICATION_SCHEMA = 'replication';

export interface ReplicationOptions {
  /** this cluster's advertised API address (http://host:port) */
  apiAddr: string;
  /** where the cluster listener binds (host:port); secondaries connect to it */
  clusterAddr: string;
  /** the cluster address secondaries are given unless primary/enable names one */
  advertisedClusterAddr: string;
  instanceId: string;
}
