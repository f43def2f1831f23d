import type { MountCatalogue } from '@coffer/contracts';

/** Nest injection tokens shared by every core-sys aggregate. */
export const SERVICE_RUNTIME = Symbol('SERVICE_RUNTIME');
export const CORE_SYS_OPTIONS = Symbol('CORE_SYS_OPTIONS');
/** The one EventStore of the core_sys schema, shared by every aggregate (createServiceEventStore). */
export const CORE_SYS_EVENT_STORE = Symbol('CORE_SYS_EVENT_STORE');

export interface CoreSysOptions {
  /** shared secret of the cluster: authenticates keyring requests from engine services */
  clusterSecret: string;
  /** dev mode: initialise with one share and unseal at boot, with this root token id if given */
  dev?: { rootTokenId?: string };
  /** advertised API address (OIDC issuer, replication later) */
  apiAddr: string;
  /** unique id of this process, for leader election diagnostics */
  instanceId: string;
  /** the cluster listener's advertised address, shown by sys/ha-status (the host's `cluster`) */
  cluster?: { advertise: string };
  /** the types sys/mounts and sys/auth may enable (handed in by the host: `MOUNT_CATALOGUE`) */
  mountCatalogue: MountCatalogue;
  /** where external plugin commands live (`plugin_directory`); absolute commands must be inside */
  pluginDirectory?: string;
  /** how started plugins talk to the cluster (EngineHost.pluginTransport) */
  pluginTransport?: { kind: 'stdio' } | { kind: 'nats'; servers: string; subjectPrefix: string };
}
