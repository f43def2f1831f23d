import { api, type ApiClient } from './api';
import { startCluster, type ClusterOptions } from './test-cluster';
import { startDevServer } from './dev-server';

/**
 * One running Coffer, dev server or cluster, behind the same face, so a spec can run the same
 * cases against both: `describe.each(TARGETS)('%s', (kind) => { ... startTarget(kind) ... })`.
 */
export type TargetKind = 'dev' | 'cluster';
export const TARGETS: TargetKind[] = ['dev', 'cluster'];

export interface Target {
  kind: TargetKind;
  baseUrl: string;
  opsUrl: string;
  rootToken: string;
  /** base64 shares that unseal it */
  unsealKeys: string[];
  /** client with the root token */
  root: ApiClient;
  /** client without a token */
  anon: ApiClient;
  /** the Postgres database (cluster only; dev keeps its data in PGlite) */
  databaseUrl?: string;
  stop(): Promise<void>;
}

/** Generous: a cluster start-up compiles and boots four Node processes on a 2-core machine. */
export const START_TIMEOUT_MS = 180_000;

export async function startTarget(kind: TargetKind, clusterOptions: ClusterOptions = {}): Promise<Target> {
  if (kind === 'dev') {
    const dev = await startDevServer(clusterOptions.env ?? {});
    return {
      kind,
      baseUrl: dev.baseUrl,
      opsUrl: dev.opsUrl,
      rootToken: dev.rootToken,
      unsealKeys: [dev.unsealKey],
      root: dev.client,
      anon: api(dev.baseUrl),
      stop: async () => {
        await dev.stop();
      },
    };
  }
  const cluster = await startCluster(clusterOptions);
  return {
    kind,
    baseUrl: cluster.baseUrl,
    opsUrl: cluster.opsUrl,
    rootToken: cluster.rootToken,
    unsealKeys: cluster.unsealKeys,
    root: cluster.client,
    anon: api(cluster.baseUrl),
    databaseUrl: cluster.databaseUrl,
    stop: () => cluster.stop(),
  };
}
