import { ManagedProcess } from './process';
import { freePort, waitForHttp } from './wait';

/** Entry points of the cluster-mode apps, relative to the repository root. */
export const APP_ENTRIES = {
  'core-sys': 'apps/core-sys/src/main.ts',
  kv: 'apps/kv/src/main.ts',
  gateway: 'apps/gateway/src/main.ts',
} as const;

export interface ClusterLaunchOptions {
  /** HCL server config file every process reads (-config) */
  configPath: string;
  kvReplicas: number;
  /** ops URL of the gateway (from the config file), polled for readiness */
  gatewayOpsUrl: string;
  /** extra environment for every process (e.g. COFFER_DATABASE_URL overrides) */
  env?: Record<string, string | undefined>;
  onLine?: (name: string, line: string, stream: 'stdout' | 'stderr') => void;
  /** per process start-up deadline; default 60 s */
  readyTimeoutMs?: number;
}

export interface LaunchedCluster {
  coreSys: ManagedProcess;
  kv: ManagedProcess[];
  gateway: ManagedProcess;
  all(): ManagedProcess[];
  /** starts one more kv replica (e.g. to replace a killed one) and waits until it is ready */
  addKvReplica(): Promise<ManagedProcess>;
  /** SIGTERM to every process (gateway first, so it stops taking requests), SIGKILL after the grace */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts core-sys, `kvReplicas` kv replicas and the gateway as separate processes, all reading
 * one config file. Processes on one host cannot share the config's ops port, so each service
 * gets its own through COFFER_OPS_LISTEN_ADDRESS; the gateway keeps the config's. Resolves once
 * every process answers GET /health on its ops listener.
 */
export async function launchCluster(opts: ClusterLaunchOptions): Promise<LaunchedCluster> {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  let kvCount = 0;

  const startService = async (
    kind: 'core-sys' | 'kv',
  ): Promise<{ proc: ManagedProcess; ready: Promise<void> }> => {
    const name = kind === 'kv' ? `kv-${++kvCount}` : kind;
    const opsPort = await freePort();
    const proc = ManagedProcess.launch({
      name,
      entry: APP_ENTRIES[kind],
      args: ['-config', opts.configPath],
      env: { ...opts.env, COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}` },
      onLine: opts.onLine && ((line, stream) => opts.onLine?.(name, line, stream)),
    });
    return { proc, ready: waitReady(proc, `http://127.0.0.1:${opsPort}/health`, readyTimeoutMs) };
  };

  const started: ManagedProcess[] = [];
  try {
    const core = await startService('core-sys');
    started.push(core.proc);
    const kvs = [];
    for (let i = 0; i < opts.kvReplicas; i++) {
      const kv = await startService('kv');
      started.push(kv.proc);
      kvs.push(kv);
    }
    const gateway = ManagedProcess.launch({
      name: 'gateway',
      entry: APP_ENTRIES.gateway,
      args: ['-config', opts.configPath],
      env: opts.env,
      onLine: opts.onLine && ((line, stream) => opts.onLine?.('gateway', line, stream)),
    });
    started.push(gateway);
    await Promise.all([
      core.ready,
      ...kvs.map((kv) => kv.ready),
      waitReady(gateway, opts.gatewayOpsUrl, readyTimeoutMs),
    ]);

    const cluster: LaunchedCluster = {
      coreSys: core.proc,
      kv: kvs.map((kv) => kv.proc),
      gateway,
      all: () => [cluster.gateway, cluster.coreSys, ...cluster.kv],
      addKvReplica: async () => {
        const kv = await startService('kv');
        cluster.kv.push(kv.proc);
        await kv.ready;
        return kv.proc;
      },
      stop: async (graceMs = 10_000) => {
        await cluster.gateway.stop(graceMs);
        await Promise.all([cluster.coreSys, ...cluster.kv].map((p) => p.stop(graceMs)));
      },
    };
    return cluster;
  } catch (error) {
    await Promise.all(started.map((p) => p.stop(2_000)));
    throw error;
  }
}

/** Waits for the ops health endpoint; fails fast (with the output) if the process dies first. */
async function waitReady(proc: ManagedProcess, healthUrl: string, timeoutMs: number): Promise<void> {
  const died = proc.exited.then((info) => {
    throw new Error(
      `${proc.name} exited (code ${info.code}, signal ${info.signal}) during start-up\n${proc.output()}`,
    );
  });
  // `died` stays pending while the process runs and rejects whenever it ends, maybe long after
  // start-up: that rejection only matters inside the race below.
  died.catch(() => undefined);
  try {
    await Promise.race([waitForHttp(healthUrl, { timeoutMs, what: `${proc.name} ops health` }), died]);
  } catch (error) {
    if (error instanceof Error && !error.message.includes(proc.output())) {
      error.message = `${error.message}\n--- ${proc.name} output ---\n${proc.output()}`;
    }
    throw error;
  }
}
