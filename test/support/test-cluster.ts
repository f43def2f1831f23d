import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createTestDatabase,
  freePort,
  natsUrl,
  uniqueSubjectPrefix,
  type TestDatabase,
  type ManagedProcess,
} from '@coffer/testing';
import { ensureKvV2, initialize, unseal, waitForEngines } from './launch/bootstrap';
import { launchCluster, type LaunchedCluster } from './launch/cluster-launcher';
import { renderClusterConfig } from './launch/cluster-config';
import { api, type ApiClient } from './api';
import { echoLines } from './logs';

export interface ClusterOptions {
  /** kv replicas (separate processes); default 1 */
  kvReplicas?: number;
  /** replicas per engine service, by name (default 1 each; `kvReplicas` for kv) */
  replicas?: Readonly<Record<string, number>>;
  /** initialise and unseal over HTTP (default true); false leaves a fresh, uninitialised cluster */
  init?: boolean;
  /** sys/init secret_shares / secret_threshold; default 1 / 1 */
  keyShares?: number;
  keyThreshold?: number;
  /** mount `secret/` as kv v2 after init, like dev mode (default true) */
  mountSecret?: boolean;
  /** gateway max_request_size in bytes (default 32 MiB) */
  maxRequestSize?: number;
  /** label for the database and subject prefix names */
  label?: string;
  /** plugin_directory of the server config (external plugins) */
  pluginDirectory?: string;
  /** how long each process may take to answer its ops /health (default: the launcher's 60 s) */
  readyTimeoutMs?: number;
  /** extra environment for every process (e.g. COFFER_OTLP_ENDPOINT, OTEL_RESOURCE_ATTRIBUTES) */
  env?: Record<string, string>;
  /** replication's cluster listener address (two clusters on one machine need their own) */
  clusterAddress?: string;
  /** managed mode: managed_namespace_root in the server config (the namespace is not created) */
  managedNamespaceRoot?: string;
}

export interface Cluster {
  /** gateway API origin, http://127.0.0.1:<port> (no /v1) */
  baseUrl: string;
  /** gateway ops origin (GET /health) */
  opsUrl: string;
  /** "" when started with init: false */
  rootToken: string;
  /** unseal key shares, base64 ([] when started with init: false) */
  unsealKeys: string[];
  /** the same shares hex-encoded */
  unsealKeysHex: string[];
  /** the cluster's own database (drop happens in stop) */
  databaseUrl: string;
  subjectPrefix: string;
  configPath: string;
  /** the running processes: kill one to test fail-over */
  processes: {
    coreSys: ManagedProcess;
    kv: ManagedProcess[];
    gateway: ManagedProcess;
    /** every engine service's replicas, by engine name */
    services: Record<string, ManagedProcess[]>;
  };
  /** a client holding the root token */
  client: ApiClient;
  /** starts one more replica of an engine service and waits until it is ready */
  addReplica(service: string): Promise<ManagedProcess>;
  addKvReplica(): Promise<ManagedProcess>;
  /** the ops listener origin of one of its processes (GET /health, /metrics) */
  opsUrlOf(proc: ManagedProcess): string;
  /** stops every process, drops the database, removes the config */
  stop(): Promise<void>;
}

/**
 * Starts a cluster as separate processes (every engine of `ENGINES` × its replicas, gateway) on a fresh database and a
 * unique NATS subject prefix, then initialises and unseals it over HTTP.
 */
export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const label = opts.label ?? 'e2e';
  const replicas = { kvReplicas: opts.kvReplicas, replicas: opts.replicas };
  const database: TestDatabase = await createTestDatabase(label, { poolSize: 1 });
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-cluster-'));
  let launched: LaunchedCluster | undefined;
  const cleanup = async () => {
    await launched?.stop();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [apiPort, opsPort] = await Promise.all([freePort(), freePort()]);
    const subjectPrefix = uniqueSubjectPrefix(label);
    const configPath = path.join(dir, 'cluster.hcl');
    await writeFile(
      configPath,
      renderClusterConfig({
        clusterName: `coffer-${label}`,
        apiAddress: `127.0.0.1:${apiPort}`,
        opsAddress: `127.0.0.1:${opsPort}`,
        databaseUrl: database.url,
        natsUrl: natsUrl(),
        subjectPrefix,
        clusterSecret: randomBytes(32).toString('base64'),
        ...replicas,
        maxRequestSize: opts.maxRequestSize,
        databaseMaxConnections: 5,
        ...(opts.pluginDirectory === undefined ? {} : { pluginDirectory: opts.pluginDirectory }),
        ...(opts.clusterAddress === undefined ? {} : { clusterAddress: opts.clusterAddress }),
        ...(opts.managedNamespaceRoot === undefined
          ? {}
          : { managedNamespaceRoot: opts.managedNamespaceRoot }),
      }),
      { mode: 0o600 },
    );
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    launched = await launchCluster({
      configPath,
      ...replicas,
      gatewayOpsUrl: `${opsUrl}/health`,
      ...(opts.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: opts.readyTimeoutMs }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
      onLine: (name, line) => echoLines(name)?.(line),
    });

    let rootToken = '';
    let unsealKeys: string[] = [];
    let unsealKeysHex: string[] = [];
    if (opts.init !== false) {
      const shares = opts.keyShares ?? 1;
      const keys = await initialize(baseUrl, shares, opts.keyThreshold ?? shares);
      rootToken = keys.rootToken;
      unsealKeys = keys.keysBase64;
      unsealKeysHex = keys.keys;
      await unseal(baseUrl, unsealKeys);
      await waitForEngines(baseUrl, rootToken);
      if (opts.mountSecret !== false) await ensureKvV2(baseUrl, rootToken, 'secret');
    }

    const running = launched;
    return {
      baseUrl,
      opsUrl,
      rootToken,
      unsealKeys,
      unsealKeysHex,
      databaseUrl: database.url,
      subjectPrefix,
      configPath,
      processes: {
        coreSys: running.coreSys,
        kv: running.kv,
        gateway: running.gateway,
        services: running.services,
      },
      client: api(baseUrl, rootToken || undefined),
      addReplica: (service) => running.addReplica(service),
      addKvReplica: () => running.addKvReplica(),
      opsUrlOf: (proc) => running.opsUrlOf(proc),
      stop: cleanup,
    };
  } catch (error) {
    await cleanup().catch(() => undefined);
    throw error;
  }
}
