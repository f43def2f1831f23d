import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import path from 'node:path';
import { invalidation, isDomainError, mountDisabled, type MountEntry } from '@coffer/contracts';
import { isPluginMount, PLUGIN_ENV, PLUGIN_VERSION_OPTION } from '@coffer/contracts/plugins';
import type { ServiceRuntime } from '@coffer/event-store';
import { IntervalLoop } from '@coffer/scheduling';
import type { Subscription, Transport } from '@coffer/transport';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
import { MountsService } from '../mounts/mounts.service';
import type { LeaderServed } from '../seal/leader-served';
import { SealService } from '../seal/seal.service';
import { verifyPluginBinary } from './plugin-binary';
import { PluginCatalogService } from './plugin-catalog.service';
import { PluginProcess } from './plugin-process';
import { PluginStorageService } from './plugin-storage.service';
import { pluginRestarts } from './plugin.metrics';

const RECONCILE_MS = 2_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** a run this long resets the back-off */
const HEALTHY_RUN_MS = 10_000;
/** the environment a plugin gets besides its catalog entry's (no host secrets leak to it) */
const BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' };

interface Supervised {
  version: string;
  process?: PluginProcess;
  startedAt: number;
  failures: number;
  timer?: NodeJS.Timeout;
}

/**
 * Runs the external plugins the mount table uses, on the seal leader: one process per plugin,
 * started after its binary passed the catalog's SHA-256 check (every start), restarted with
 * back-off when it exits, stopped when no mount uses it any more or leadership moves.
 */
@Injectable()
export class PluginSupervisor implements LeaderServed, OnApplicationShutdown {
  private readonly logger = new Logger('Plugins');
  readonly #supervised = new Map<string, Supervised>();
  readonly #loop: IntervalLoop;
  #leading = false;
  #broadcast: Subscription | undefined;
  #disabled: Subscription | undefined;
  #reconciling: Promise<void> = Promise.resolve();

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(CORE_SYS_OPTIONS) private readonly options: CoreSysOptions,
    @Inject(MountsService) private readonly mounts: Pick<MountsService, 'table'>,
    private readonly seal: SealService,
    private readonly catalog: PluginCatalogService,
    private readonly storage: PluginStorageService,
  ) {
    this.#loop = new IntervalLoop({
      name: 'plugin reconcile',
      intervalMs: RECONCILE_MS,
      run: () => this.reconcile(),
      onError: (error) => this.logger.warn(`plugin reconcile failed: ${(error as Error).message}`),
    });
  }

  serveOnLeader(transport: Transport): Subscription[] {
    this.#leading = true;
    this.#broadcast = transport.subscribe(invalidation, (payload) => {
      if (payload.kind === 'mounts' || payload.kind === 'seal') void this.reconcile();
    });
    // A disabled mount's plugin data goes with it (the leader purges it, once).
    this.#disabled = transport.subscribe(mountDisabled, (payload) =>
      this.storage
        .purgeMount(payload.uuid)
        .catch((error: unknown) => this.logger.warn(`plugin data purge failed: ${(error as Error).message}`)),
    );
    this.#loop.start();
    void this.reconcile();
    return [{ unsubscribe: () => this.reset() }];
  }

  reset(): void {
    this.#leading = false;
    this.#broadcast?.unsubscribe();
    this.#broadcast = undefined;
    this.#disabled?.unsubscribe();
    this.#disabled = undefined;
    void this.#loop.stop();
    for (const name of [...this.#supervised.keys()]) this.#drop(name);
  }

  onApplicationShutdown(): void {
    this.reset();
  }

  /** Makes the running set match the plugin mounts (serialised). */
  reconcile(): Promise<void> {
    const run = this.#reconciling.then(() => this.#reconcile());
    this.#reconciling = run.catch(() => undefined);
    return run;
  }

  async #reconcile(): Promise<void> {
    if (!this.#leading || !this.seal.isUnsealed()) return;
    const wanted = new Map<string, string>();
    for (const m of (await this.mounts.table()).mounts) {
      if (isPluginMount(m) && !wanted.has(m.type)) wanted.set(m.type, versionOf(m));
    }
    for (const name of [...this.#supervised.keys()]) {
      if (wanted.get(name) !== this.#supervised.get(name)?.version) this.#drop(name);
    }
    for (const [name, version] of wanted) {
      if (this.#supervised.has(name)) continue;
      const entry: Supervised = { version, startedAt: 0, failures: 0 };
      this.#supervised.set(name, entry);
      await this.#start(name, entry);
    }
  }

  #drop(name: string): void {
    const s = this.#supervised.get(name);
    this.#supervised.delete(name);
    if (!s) return;
    if (s.timer) clearTimeout(s.timer);
    s.process?.stop();
  }

  async #start(name: string, s: Supervised): Promise<void> {
    if (this.#supervised.get(name) !== s || !this.#leading) return;
    try {
      const entry = await this.catalog.resolve('secret', name, s.version);
      if (!entry) throw new Error(`no catalog entry for plugin "${name}" ${s.version}`);
      const file = await verifyPluginBinary(this.options.pluginDirectory, entry);
      const proc = new PluginProcess({
        name,
        file,
        args: entry.args,
        cwd: path.dirname(file),
        env: { ...BASE_ENV, ...envOf(entry.env), ...this.#pluginEnv(name) },
        ...(this.options.pluginTransport?.kind === 'nats'
          ? {}
          : {
              stdio: {
                transport: this.runtime.transport,
                storage: (mount, request) => this.storage.serve(name, mount, request),
              },
            }),
        log: (line) => this.logger.log(`[${name}] ${line}`),
        onExit: (code, signal) => this.#exited(name, s, proc, code, signal),
      });
      s.process = proc;
      s.startedAt = Date.now();
      this.logger.log(`plugin ${name} started (pid ${proc.pid ?? '?'})`);
    } catch (error) {
      const message = isDomainError(error) || error instanceof Error ? error.message : String(error);
      this.logger.warn(`plugin ${name} not started: ${message}`);
      this.#retry(name, s);
    }
  }

  #exited(
    name: string,
    s: Supervised,
    proc: PluginProcess,
    code: number | null,
    signal: string | null,
  ): void {
    if (s.process !== proc) return;
    s.process = undefined;
    if (this.#supervised.get(name) !== s) return;
    if (Date.now() - s.startedAt >= HEALTHY_RUN_MS) s.failures = 0;
    this.logger.warn(`plugin ${name} exited (${signal ?? `code ${code ?? '?'}`})`);
    this.#retry(name, s);
  }

  #retry(name: string, s: Supervised): void {
    if (this.#supervised.get(name) !== s || !this.#leading) return;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** s.failures);
    s.failures += 1;
    pluginRestarts.inc({ plugin: name });
    this.logger.log(`plugin ${name} restarts in ${delay} ms`);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.#start(name, s);
    }, delay);
    s.timer.unref();
  }

  #pluginEnv(name: string): Record<string, string> {
    const t = this.options.pluginTransport;
    const env: Record<string, string> = {
      [PLUGIN_ENV.name]: name,
      [PLUGIN_ENV.transport]: t?.kind ?? 'stdio',
    };
    if (t?.kind === 'nats') {
      env[PLUGIN_ENV.natsServers] = t.servers;
      env[PLUGIN_ENV.subjectPrefix] = t.subjectPrefix;
      env[PLUGIN_ENV.secret] = this.storage.secretFor(name);
    }
    return env;
  }
}

const versionOf = (m: MountEntry): string => m.options[PLUGIN_VERSION_OPTION] ?? '';

function envOf(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const at = e.indexOf('=');
    if (at > 0) out[e.slice(0, at)] = e.slice(at + 1);
  }
  return out;
}
