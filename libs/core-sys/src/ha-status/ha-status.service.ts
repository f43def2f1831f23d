import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { hostname } from 'node:os';
import type { ResponseOf, sysContracts } from '@coffer/contracts';
import type { ServiceRuntime } from '@coffer/event-store';
import { IntervalLoop } from '@coffer/scheduling';
import { CORE_SYS_OPTIONS, SERVICE_RUNTIME, type CoreSysOptions } from '../core-sys.di';
import { SealCoordinator } from '../seal/seal-coordinator';
import { SERVICE_VERSION } from '../seal/version';
import { HA_ECHO_INTERVAL_MS, haNodesView, type HaNodeRecord } from './ha-node.model';
import { HaNodeRepository } from './ha-node.repository';

/** Heartbeat rows silent this long are deleted. */
const PRUNE_AFTER_MS = 60 * 60_000;

/**
 * sys/ha-status: every core-sys process records a heartbeat (Vault's standby echo) saying
 * whether it holds the seal leadership; the status lists the processes heard from lately.
 * Dev mode has one process, which is the active node.
 */
@Injectable()
export class HaStatusService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('HaStatus');
  /** Heartbeats one at a time, so the last one written states the latest leadership. */
  #echoes: Promise<void> = Promise.resolve();
  #stopped = false;
  readonly #loop = new IntervalLoop({
    name: 'ha heartbeat',
    intervalMs: HA_ECHO_INTERVAL_MS,
    run: () => this.#queueEcho(),
    onError: (error) => this.#logger.warn(`ha heartbeat failed: ${(error as Error).message}`),
  });

  constructor(
    @Inject(SERVICE_RUNTIME) private readonly runtime: Pick<ServiceRuntime, 'clock'>,
    @Inject(CORE_SYS_OPTIONS)
    private readonly options: Pick<CoreSysOptions, 'instanceId' | 'apiAddr' | 'cluster'>,
    @Inject(SealCoordinator)
    private readonly coordinator: Pick<SealCoordinator, 'isLeader' | 'onLeadershipChange'>,
    private readonly repo: HaNodeRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A change of leader is told at once, not at the next heartbeat.
    this.coordinator.onLeadershipChange(() => {
      this.#queueEcho().catch((error: unknown) =>
        this.#logger.warn(`ha heartbeat failed: ${(error as Error).message}`),
      );
    });
    await this.#loop.tick();
    this.#loop.start();
  }

  /** A process that stops cleanly leaves the list at once. */
  async onApplicationShutdown(): Promise<void> {
    this.#stopped = true;
    await this.#loop.stop();
    await this.#echoes;
    await this.repo.remove(this.options.instanceId).catch(() => undefined);
  }

  #queueEcho(): Promise<void> {
    const next = this.#echoes.then(() => this.#echo());
    this.#echoes = next.catch(() => undefined);
    return next;
  }

  /** This process's heartbeat. */
  async #echo(): Promise<void> {
    if (this.#stopped) return;
    const now = this.runtime.clock();
    await this.repo.record(this.#self(now));
    await this.repo.prune(new Date(now.getTime() - PRUNE_AFTER_MS));
  }

  async status(): Promise<ResponseOf<typeof sysContracts.haStatus>> {
    const now = this.runtime.clock();
    // The answering process states its own part as it is now.
    await this.#queueEcho();
    const rows = await this.repo.since(new Date(now.getTime() - 2 * 60_000));
    return { kind: 'injected', data: { nodes: haNodesView(rows, now) } };
  }

  #self(now: Date): HaNodeRecord {
    return {
      nodeId: this.options.instanceId,
      hostname: hostname(),
      apiAddress: this.options.apiAddr,
      clusterAddress: this.options.cluster?.advertise ?? '',
      version: SERVICE_VERSION,
      active: this.coordinator.isLeader,
      lastEcho: now,
    };
  }
}
