import { ENGINES } from '@coffer/engines';
import { replicaCounts } from './cluster-config';
import { ManagedProcess, freePort, waitForHttp } from '@coffer/testing';

/** Entry point of a cluster-mode app, relative to the repository root: `apps/<name>/src/main.ts`. */
export const appEntry = (name: string): string => `apps/${name}/src/main.ts`;

/** Entry points of the cluster-mode apps: one per engine of `ENGINES`, and the gateway. */
export const APP_ENTRIES: Readonly<Record<string, string>> = Object.fromEntries(
  [...ENGINES.map((engine) => engine.name), 'gateway'].map((name) => [name, appEntry(name)]),
);

export interface ClusterLaunchOptions {
  /** HCL server config file every process reads (-config) */
  configPath: string;
  /** replicas per engine service, by name; an engine not named runs one */
  replicas?: Readonly<Record<string, number>>;
  /** kv replicas (shorthand for `replicas: { kv }`) */
  kvReplicas?: number;
  /** ops URL of the gateway (from the config file), polled for readiness */
  gatewayOpsUrl: string;
  /** extra environment for every process (e.g. COFFER_DATABASE_URL overrides) */
  env?: Record<string, string | undefined>;
  onLine?: (name: string, line: string, stream: 'stdout' | 'stderr') => void;
  /** per process start-up deadline; default 60 s */
  readyTimeoutMs?: number;
}

/** A process just started: `ready` resolves once it answers GET /health, rejects if it dies first. */
export interface StartedProcess {
  proc: ManagedProcess;
  ready: Promise<void>;
}

export interface LaunchedCluster {
  /** the replicas of each engine service, by engine name, in `ENGINES` order */
  services: Record<string, ManagedProcess[]>;
  readonly coreSys: ManagedProcess;
  readonly kv: ManagedProcess[];
  gateway: ManagedProcess;
  all(): ManagedProcess[];
  /** the ops listener origin of a process (http://127.0.0.1:<port>: /health, /metrics) */
  opsUrlOf(proc: ManagedProcess): string;
  /** starts one more replica of an engine service and waits until it is ready */
  addReplica(service: string): Promise<ManagedProcess>;
  /** addReplica('kv') */
  addKvReplica(): Promise<ManagedProcess>;
  /**
   * Starts a process in place of `proc` (same service, same name), e.g. after it died; the
   * returned `ready` tells when it serves. `proc` should have exited.
   */
  replace(proc: ManagedProcess): Promise<StartedProcess>;
  /** SIGTERM to every process (gateway first, so it stops taking requests), SIGKILL after the grace */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts every engine service of `ENGINES` (core-sys first, each with its replica count) and the
 * gateway as separate processes, all reading one config file. Processes on one host cannot share
 * the config's ops port, so each service replica gets its own through COFFER_OPS_LISTEN_ADDRESS;
 * the gateway keeps the config's. Resolves once every process answers GET /health on its ops
 * listener.
 */
export async function launchCluster(opts: ClusterLaunchOptions): Promise<LaunchedCluster> {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const counters = new Map<string, number>();
  const serviceOf = new Map<ManagedProcess, string>();
  const opsUrls = new Map<ManagedProcess, string>();

  const startService = async (service: string, name?: string): Promise<StartedProcess> => {
    const n = (counters.get(service) ?? 0) + 1;
    if (name === undefined) counters.set(service, n);
    const label = name ?? `${service}-${n}`;
    const opsPort = await freePort();
    const proc = ManagedProcess.launch({
      name: label,
      entry: appEntry(service),
      args: ['-config', opts.configPath],
      env: { ...opts.env, COFFER_OPS_LISTEN_ADDRESS: `127.0.0.1:${opsPort}` },
      onLine: opts.onLine && ((line, stream) => opts.onLine?.(label, line, stream)),
    });
    serviceOf.set(proc, service);
    opsUrls.set(proc, `http://127.0.0.1:${opsPort}`);
    return { proc, ready: waitReady(proc, `http://127.0.0.1:${opsPort}/health`, readyTimeoutMs) };
  };
  const startGateway = (): StartedProcess => {
    const proc = ManagedProcess.launch({
      name: 'gateway',
      entry: appEntry('gateway'),
      args: ['-config', opts.configPath],
      env: opts.env,
      onLine: opts.onLine && ((line, stream) => opts.onLine?.('gateway', line, stream)),
    });
    opsUrls.set(proc, new URL(opts.gatewayOpsUrl).origin);
    return { proc, ready: waitReady(proc, opts.gatewayOpsUrl, readyTimeoutMs) };
  };

  const services: Record<string, ManagedProcess[]> = {};
  const started: StartedProcess[] = [];
  try {
    for (const [service, count] of replicaCounts(opts)) {
      services[service] = [];
      for (let i = 0; i < count; i++) {
        const replica = await startService(service);
        started.push(replica);
        services[service].push(replica.proc);
      }
    }
    const gateway = startGateway();
    started.push(gateway);
    await Promise.all(started.map((s) => s.ready));

    const replicasOf = (service: string): ManagedProcess[] => {
      const list = services[service];
      if (!list) throw new Error(`no engine service named "${service}"`);
      return list;
    };
    const cluster: LaunchedCluster = {
      services,
      get coreSys() {
        const [core] = replicasOf('core-sys');
        if (!core) throw new Error('core-sys runs no replica');
        return core;
      },
      get kv() {
        return replicasOf('kv');
      },
      gateway: gateway.proc,
      all: () => [cluster.gateway, ...Object.values(services).flat()],
      opsUrlOf: (proc) => {
        const url = opsUrls.get(proc);
        if (url === undefined) throw new Error(`${proc.name} is not a process of this cluster`);
        return url;
      },
      addReplica: async (service) => {
        const list = replicasOf(service);
        const replica = await startService(service);
        list.push(replica.proc);
        await replica.ready;
        return replica.proc;
      },
      addKvReplica: () => cluster.addReplica('kv'),
      replace: async (proc) => {
        if (proc === cluster.gateway) {
          const fresh = startGateway();
          cluster.gateway = fresh.proc;
          return fresh;
        }
        const service = serviceOf.get(proc);
        const list = service === undefined ? undefined : services[service];
        const at = list?.indexOf(proc) ?? -1;
        if (service === undefined || list === undefined || at < 0) {
          throw new Error(`${proc.name} is not a process of this cluster`);
        }
        const fresh = await startService(service, proc.name);
        list[at] = fresh.proc;
        return fresh;
      },
      stop: async (graceMs = 10_000) => {
        await cluster.gateway.stop(graceMs);
        await Promise.all(
          Object.values(services)
            .flat()
            .map((p) => p.stop(graceMs)),
        );
      },
    };
    return cluster;
  } catch (error) {
    await Promise.all(started.map((s) => s.proc.stop(2_000)));
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
    await Promise.race([waitForHttp(healthUrl, { timeoutMs, message: `${proc.name} ops health` }), died]);
  } catch (error) {
    if (error instanceof Error && !error.message.includes(proc.output())) {
      error.message = `${error.message}\n--- ${proc.name} output ---\n${proc.output()}`;
    }
    throw error;
  }
}
