import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { coreMountTable, DomainError, type MountEntry } from '@coffer/contracts';
import {
  REPLICATION_MODES,
  replicaExportContract,
  type ForwardedAnswer,
  type ForwardedWrite,
  type ReplicaAttachment,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import { openReplicaPayload, type RawEvent, type ServiceRuntime } from '@coffer/event-store';
import { IntervalLoop } from '@coffer/scheduling';
import { REPLICATION_OPTIONS, REPLICATION_RUNTIME, type ReplicationOptions } from '../replication.di';
import { decide, type ModeState, type PrimaryLink } from '../state/replication-state.decider';
import { ReplicationStateService } from '../state/replication-state.service';
import { WalSource } from '../wal/wal-source';
import { ClusterListener } from './cluster-listener';
import { messageOf } from './error-text';
import { ReplicaKeyringsRepository } from './replica-keyrings.repository';
import { ReplicaSink } from './replica-sink';
import { Fencer } from './fencer';
import { PromotionFold } from './promotion-fold';
import { StreamClient } from './stream-client';
import { dynamicFilter } from './paths-filter';
import type { StreamFilter } from './stream-filter';
import { StreamStatus } from './stream-status';
import { ForwardingPool } from './forwarding-pool';
import { runForwarded } from './write-forwarding';

const SYNC_MS = 1_000;

const sameLink = (a: PrimaryLink, b: PrimaryLink): boolean =>
  a.clusterId === b.clusterId &&
  a.secondaryId === b.secondaryId &&
  a.primaryClusterAddr === b.primaryClusterAddr &&
  a.psk === b.psk;

/**
 * Keeps the cluster connections in line with the replication state: the cluster listener runs
 * while a mode is primary (and only then, so dev servers that never replicate never bind the
 * cluster port), a stream client runs per mode that is a secondary with a primary. The state is
 * re-read after every command and every second (another replica's command, a restart).
 */
@Injectable()
export class ReplicationSupervisor implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('ReplicationSupervisor');
  private readonly states = new Map<ReplicationMode, ModeState>();
  private readonly clients = new Map<ReplicationMode, StreamClient>();
  private readonly fencers = new Map<ReplicationMode, Fencer>();
  private readonly filters = new Map<string, StreamFilter>();
  private readonly listener: ClusterListener;
  /** a performance secondary's pooled connection to its primary for forwarded writes */
  private forwarding: ForwardingPool | undefined;
  private readonly loop: IntervalLoop;
  private listenError: string | undefined;
  /** the promoted modes whose replicated state this process saw folded, and the fold under way */
  private readonly folded = new Set<ReplicationMode>();
  private folding: Promise<void> | undefined;

  constructor(
    private readonly stateService: ReplicationStateService,
    private readonly wal: WalSource,
    private readonly replica: ReplicaSink,
    private readonly keyrings: ReplicaKeyringsRepository,
    private readonly status: StreamStatus,
    private readonly folds: PromotionFold,
    @Inject(REPLICATION_RUNTIME) private readonly runtime: ServiceRuntime,
    @Inject(REPLICATION_OPTIONS) private readonly options: ReplicationOptions,
  ) {
    this.listener = new ClusterListener({
      wal,
      status,
      stateOf: (mode) => this.states.get(mode),
      filterFor: (mode, id) => this.filters.get(`${mode}:${id}`),
      keyrings: () => keyrings.toSend(),
      stepDown: (mode) => this.stepDown(mode),
      attachments: (source, rows) => this.attachments(source, rows),
      forward: (id, forward) =>
        runForwarded(
          {
            transport: runtime.transport,
            mounts: () => this.mounts(),
            filterFor: (secondaryId) => this.filters.get(`performance:${secondaryId}`),
            head: async (schema) => (await wal.heads()).find((h) => h.source === schema)?.lastWal ?? 0,
          },
          id,
          forward,
        ),
    });
    this.loop = new IntervalLoop({
      intervalMs: SYNC_MS,
      run: () => this.sync(),
      onError: (error) => this.logger.warn(`replication sync failed: ${messageOf(error)}`),
    });
    stateService.onChange(() => void this.loop.tick());
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    void this.loop.tick();
  }

  onModuleDestroy(): void {
    this.closeForwarding();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closeForwarding();
    await this.loop.stop();
    for (const client of this.clients.values()) client.stop();
    this.clients.clear();
    for (const fencer of this.fencers.values()) fencer.stop();
    this.fencers.clear();
    await this.listener.stop();
  }

  /** Re-reads the state now and adjusts the connections (after a command). */
  refresh(): Promise<void> {
    return this.loop.tick();
  }

  stateOf(mode: ReplicationMode): ModeState | undefined {
    return this.states.get(mode);
  }

  setFilter(mode: ReplicationMode, id: string, filter: StreamFilter | undefined): void {
    if (filter) this.filters.set(`${mode}:${id}`, filter);
    else this.filters.delete(`${mode}:${id}`);
  }

  /** Fencing: a promoted secondary of this set took over, so this primary demotes itself. */
  private async stepDown(mode: ReplicationMode): Promise<void> {
    await this.stateService.command(mode, (s) => (s.state === 'primary' ? decide.primaryDemote(s) : []));
    await this.refresh();
  }

  /** While promoted, tell the primary this cluster was promoted away from to step down (once). */
  private syncFencer(mode: ReplicationMode, state: ModeState): void {
    const former = state.state === 'primary' ? state.supersedes : null;
    const current = this.fencers.get(mode);
    if (current && (!former || !sameLink(current.former, former))) {
      current.stop();
      this.fencers.delete(mode);
    }
    if (former && !this.fencers.has(mode)) {
      const fencer = new Fencer(mode, former, {
        apiAddr: this.options.apiAddr,
        clusterAddr: this.options.advertisedClusterAddr,
      });
      this.fencers.set(mode, fencer);
      fencer.start();
    }
  }

  /**
   * A promoted cluster folds its replicated core-sys state into its own log (see PromotionFold);
   * promote does it, this finishes a promotion interrupted before (a crash, core-sys down), once
   * per process, in the background (the fold only appends: a secondary that connected meanwhile
   * streams the folded events after the rest).
   */
  private syncFold(mode: ReplicationMode, state: ModeState): void {
    if (state.state !== 'primary' || !state.supersedes) {
      this.folded.delete(mode);
      return;
    }
    if (this.folded.has(mode) || this.folding) return;
    this.folding = this.folds
      .fold(mode)
      .then(() => void this.folded.add(mode))
      .catch((error: unknown) => this.logger.warn(`promotion fold failed (retried): ${messageOf(error)}`))
      .finally(() => {
        this.folding = undefined;
      });
  }

  /**
   * A performance secondary's side of write forwarding: the write goes to the primary it
   * follows, over the pooled connection authenticated with its pre-shared key (opened for the
   * link of the state read now: a new primary or key gets a new pool).
   */
  async forward(forward: ForwardedWrite): Promise<ForwardedAnswer> {
    const { state } = await this.stateService.load('performance');
    if (state.state !== 'secondary' || !state.link)
      throw new DomainError(
        'invalid_request',
        'this cluster is not a performance secondary following a primary',
      );
    this.syncForwarding(state);
    this.forwarding ??= new ForwardingPool(state.link, {
      apiAddr: this.options.apiAddr,
      clusterAddr: this.options.advertisedClusterAddr,
    });
    return this.forwarding.forward(forward, state.epoch);
  }

  /** Closes the forwarding pool unless it serves this performance state's link (update-primary, disable, demote). */
  private syncForwarding(state: ModeState): void {
    const link = state.state === 'secondary' ? state.link : null;
    if (this.forwarding && (!link || !sameLink(this.forwarding.link, link))) this.closeForwarding();
  }

  private closeForwarding(): void {
    this.forwarding?.close();
    this.forwarding = undefined;
  }

  /** Asks the source's service what its rows need beyond the log, their payloads opened here. */
  private async attachments(source: string, rows: readonly RawEvent[]): Promise<ReplicaAttachment[]> {
    const opener = await this.keyrings.opener();
    const events = rows.map((r) => ({
      wal: r.wal,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(opener, source, r),
    }));
    return (await this.runtime.transport.request(replicaExportContract(source), { events })).attachments;
  }

  /** Why the cluster listener is not serving, if it should be and is not. */
  get listenerProblem(): string | undefined {
    return this.listenError;
  }

  private async sync(): Promise<void> {
    if (this.runtime.cipher.sealed) return;
    for (const mode of REPLICATION_MODES) {
      const { state } = await this.stateService.load(mode);
      this.states.set(mode, state);
      this.syncClient(mode, state);
      if (mode === 'performance') this.syncForwarding(state);
      this.syncFencer(mode, state);
      this.syncFold(mode, state);
      if (state.state !== 'primary') this.status.forgetSecondaries(mode);
    }
    await this.syncFilters();
    this.listener.enforce();
    const wantListener = REPLICATION_MODES.some((m) => this.states.get(m)?.state === 'primary');
    if (wantListener && !this.listener.listening) {
      try {
        await this.listener.start(this.options.clusterAddr);
        this.listenError = undefined;
      } catch (error) {
        this.listenError = `cannot listen on ${this.options.clusterAddr}: ${messageOf(error)}`;
        this.logger.warn(this.listenError);
      }
    } else if (!wantListener && this.listener.listening) {
      await this.listener.stop();
    }
  }

  /** The mount table, for the paths filters (core-sys owns it). */
  async mounts(): Promise<MountEntry[]> {
    return (await this.runtime.transport.request(coreMountTable, {})).mounts;
  }

  /**
   * Each performance secondary's filter from its paths filter and the current mount table (a
   * mount enabled later is filtered as soon as the next pass sees it). DR streams everything.
   */
  private async syncFilters(): Promise<void> {
    const state = this.states.get('performance');
    if (state?.state !== 'primary' || state.secondaries.length === 0) return;
    const mounts = await this.mounts();
    for (const secondary of state.secondaries) {
      const f = dynamicFilter(state.filters[secondary.id], mounts);
      this.setFilter('performance', secondary.id, {
        excludedMountUuids: new Set(f.mountUuids),
        mounts: f.mounts,
        namespaces: f.namespaces,
      });
    }
  }

  private syncClient(mode: ReplicationMode, state: ModeState): void {
    const current = this.clients.get(mode);
    const link = state.state === 'secondary' ? state.link : null;
    if (current && (!link || !sameLink(current.link, link))) {
      current.stop();
      this.clients.delete(mode);
      this.status.resetPrimary(mode);
    }
    if (link && !this.clients.has(mode)) {
      const client = new StreamClient(mode, link, {
        replica: this.replica,
        keyrings: this.keyrings,
        status: this.status,
        apiAddr: this.options.apiAddr,
        clusterAddr: this.options.advertisedClusterAddr,
        epoch: state.epoch,
        observeEpoch: async (m, epoch) => {
          await this.stateService.command(m, (s) => decide.observeEpoch(s, epoch));
        },
      });
      this.clients.set(mode, client);
      client.start();
    }
  }
}
