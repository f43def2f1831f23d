import { Logger } from '@nestjs/common';
import type { TLSSocket } from 'node:tls';
import type { ReplicationMode } from '@coffer/contracts/replication';
import type { PrimaryLink } from '../state/replication-state.decider';
import { messageOf } from './error-text';
import { Barrier, parseKeyring, type Cipher } from '@coffer/barrier';
import { KeyringSet, type ReplicaKeyringsRepository } from './replica-keyrings.repository';
import type { ReplicaSink } from './replica-sink';
import type { StreamStatus } from './stream-status';
import { frame, frameReader, serverFrameSchema, type ServerFrame } from './stream.wire';
import { judgeEpoch, staleEpochReason } from './frame-epoch';
import { connectToPrimary } from './primary-connection';

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;
/** no frame for this long: the connection is taken for dead (the primary beats every second) */
const SILENCE_MS = 10_000;

export interface ClientDeps {
  replica: ReplicaSink;
  keyrings: ReplicaKeyringsRepository;
  status: StreamStatus;
  apiAddr: string;
  clusterAddr: string;
  /** the highest primary epoch this secondary has seen (its state's epoch) */
  epoch: number;
  /** records a higher epoch seen, durably (the state's ReplicationEpochObserved) */
  observeEpoch: (mode: ReplicationMode, epoch: number) => Promise<void>;
}

/**
 * A secondary's side of the stream for one mode: connects to the primary's cluster address,
 * says hello with the positions recorded in its database, applies each batch in order (one
 * transaction per batch, position included) and acknowledges; reconnects with back-off,
 * resuming from the recorded positions, until stopped.
 */
export class StreamClient {
  private readonly logger = new Logger('ReplicationStream');
  private stopped = false;
  private socket: TLSSocket | undefined;
  private backoff = MIN_BACKOFF_MS;
  private timer: NodeJS.Timeout | undefined;
  /** the primary's keyrings, as its last connection sent them */
  private primaryKeyrings: Barrier[] = [];
  private opener: Cipher | undefined;
  /** frames of a lower epoch than this are refused (see frame-epoch.ts) */
  private epoch: number;

  constructor(
    readonly mode: ReplicationMode,
    readonly link: PrimaryLink,
    private readonly deps: ClientDeps,
  ) {
    this.epoch = deps.epoch;
  }

  start(): void {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.forgetKeyrings();
    clearTimeout(this.timer);
    this.socket?.destroy();
    const live = this.deps.status.primary(this.mode);
    live.connected = false;
  }

  private forgetKeyrings(): void {
    for (const barrier of this.primaryKeyrings) barrier.wipe();
    this.primaryKeyrings = [];
    this.opener = undefined;
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), this.backoff);
    this.timer.unref();
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let positions;
    try {
      positions = await this.deps.replica.positions(this.mode);
    } catch (error) {
      this.logger.warn(`reading the replication positions failed: ${messageOf(error)}`);
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) return;
    const live = this.deps.status.primary(this.mode);
    const socket = connectToPrimary(this.link, this.mode);
    this.socket = socket;
    let silence: NodeJS.Timeout | undefined;
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => socket.destroy(), SILENCE_MS);
      silence.unref();
    };
    // Batches are applied strictly one after another, in arrival order.
    let applying: Promise<void> = Promise.resolve();
    socket.on('secureConnect', () => {
      alive();
      socket.write(
        frame({
          t: 'hello',
          mode: this.mode,
          clusterId: this.link.clusterId,
          secondaryId: this.link.secondaryId,
          apiAddr: this.deps.apiAddr,
          clusterAddr: this.deps.clusterAddr,
          positions,
          epoch: this.epoch,
        }),
      );
    });
    socket.on(
      'data',
      frameReader(
        serverFrameSchema,
        (f: ServerFrame) => {
          alive();
          applying = applying.then(() => this.onFrame(socket, f));
        },
        () => socket.destroy(),
      ),
    );
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(silence);
      live.connected = false;
      if (this.socket === socket) this.socket = undefined;
      this.scheduleReconnect();
    });
  }

  /**
   * Whether a frame of `stamped` may be used: a stale one closes the connection (nothing of a
   * superseded primary is applied; the status shows why); a newer one is recorded first.
   */
  private async acceptEpoch(socket: TLSSocket, stamped: number): Promise<boolean> {
    const live = this.deps.status.primary(this.mode);
    const verdict = judgeEpoch(this.epoch, stamped);
    if (verdict === 'stale') {
      const reason = staleEpochReason(this.epoch, stamped);
      if (live.refused !== reason) this.logger.warn(`refusing the primary's stream: ${reason}`);
      live.refused = reason;
      this.backoff = MAX_BACKOFF_MS;
      socket.destroy();
      return false;
    }
    if (verdict === 'newer') {
      try {
        await this.deps.observeEpoch(this.mode, stamped);
        this.epoch = stamped;
      } catch (error) {
        this.logger.warn(`recording the primary's epoch failed: ${messageOf(error)}; reconnecting`);
        socket.destroy();
        return false;
      }
    }
    return true;
  }

  private async onFrame(socket: TLSSocket, f: ServerFrame): Promise<void> {
    if (socket.destroyed) return;
    const live = this.deps.status.primary(this.mode);
    // a refusal carries nothing to apply: its reason is shown whatever its epoch
    if (f.t !== 'refused' && !(await this.acceptEpoch(socket, f.epoch))) return;
    switch (f.t) {
      case 'welcome':
        live.connected = true;
        live.refused = null;
        live.lastHeartbeat = new Date();
        this.backoff = MIN_BACKOFF_MS;
        return;
      case 'refused':
        if (live.refused !== f.reason) this.logger.warn(`the primary refused the stream: ${f.reason}`);
        live.refused = f.reason;
        this.backoff = MAX_BACKOFF_MS;
        socket.destroy();
        return;
      case 'heartbeat':
        live.heads = f.heads;
        if (f.filtered) live.filtered = f.filtered;
        live.lastHeartbeat = new Date();
        return;
      case 'keyring':
        try {
          // kept (sealed by this cluster's barrier): once promoted, this cluster opens these rows
          await this.deps.keyrings.save(f.keyrings);
          this.forgetKeyrings();
          this.primaryKeyrings = f.keyrings.map((k) => {
            const barrier = new Barrier();
            barrier.load(parseKeyring(Buffer.from(k, 'base64')));
            return barrier;
          });
          this.opener = new KeyringSet(this.primaryKeyrings);
        } catch (error) {
          this.logger.warn(`the primary's keyring could not be kept: ${messageOf(error)}; reconnecting`);
          socket.destroy();
        }
        return;
      case 'resync':
        try {
          await this.deps.replica.resync(this.mode, f.source);
        } catch (error) {
          this.logger.warn(`re-syncing ${f.source} failed: ${messageOf(error)}`);
        }
        socket.destroy();
        return;
      case 'batch':
        try {
          await this.deps.replica.apply(this.mode, f.source, f.events, f.attachments ?? [], this.opener);
          socket.write(frame({ t: 'ack', positions: await this.deps.replica.positions(this.mode) }));
        } catch (error) {
          this.logger.warn(`applying a batch of ${f.source} failed: ${messageOf(error)}; reconnecting`);
          socket.destroy();
        }
        return;
      case 'forwarding':
      case 'forwarded':
        // forwarded writes have their own connection (forwarding-pool.ts), never the stream
        this.logger.warn('the primary sent a write-forwarding frame on the stream; reconnecting');
        socket.destroy();
        return;
    }
  }
}
