import type { Logger } from '@nestjs/common';
import type { TLSSocket } from 'node:tls';
import type { ReplicaAttachment } from '@coffer/contracts/replication';
import type { SourceHead } from '../wal/merkle';
import { wholeAppends } from '../wal/whole-appends';
import type { ListenerDeps } from './cluster-listener';
import { messageOf } from './error-text';
import { REPLAYED_SOURCES } from './replica-sink';
import { stampedFrame } from './secondary-admission';
import { filterEvents, type StreamedRow } from './stream-filter';
import type { ClientFrame, UnstampedFrame } from './stream.wire';

const BATCH = 500;
const IDLE_POLL_MS = 25;
const HEARTBEAT_MS = 1_000;

/** One secondary's stream: every log from the secondary's positions on, then follow the heads. */
export class PrimaryStream {
  private stopped = false;
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly socket: TLSSocket,
    private readonly hello: Extract<ClientFrame, { t: 'hello' }>,
    private readonly deps: ListenerDeps,
    private readonly logger: Logger,
  ) {
    for (const p of hello.positions) this.sent.set(p.source, p.lastWal);
  }

  start(): void {
    const { mode, secondaryId, apiAddr, clusterAddr } = this.hello;
    this.deps.status.setSecondary(mode, {
      id: secondaryId,
      apiAddr,
      clusterAddr,
      connected: true,
      lastHeartbeat: new Date(),
      acked: this.hello.positions,
    });
    void this.send({ t: 'welcome', clusterId: this.hello.clusterId });
    void this.pump().catch((error: unknown) => {
      if (!this.stopped) this.logger.warn(`stream to ${secondaryId} failed: ${messageOf(error)}`);
      this.socket.destroy();
    });
  }

  stop(): void {
    this.stopped = true;
    const live = this.deps.status.secondary(this.hello.mode, this.hello.secondaryId);
    if (live) live.connected = false;
  }

  acked(positions: SourceHead[]): void {
    const live = this.deps.status.secondary(this.hello.mode, this.hello.secondaryId);
    if (live) {
      live.acked = positions;
      live.lastHeartbeat = new Date();
    }
  }

  /** The hello's positions that are not in this log: those secondaries must re-sync. */
  private async diverged(): Promise<string[]> {
    const out: string[] = [];
    for (const p of this.hello.positions) {
      if (p.lastWal === 0) continue;
      const [row] = await this.deps.wal.read(p.source, p.lastWal - 1, 1);
      if (row?.wal !== p.lastWal || row.hash !== p.hash) out.push(p.source);
    }
    return out;
  }

  private async pump(): Promise<void> {
    const diverged = await this.diverged();
    if (diverged.length > 0) {
      for (const source of diverged) await this.send({ t: 'resync', source });
      this.socket.end();
      return;
    }
    await this.send({ t: 'keyring', keyrings: await this.deps.keyrings() });
    let lastBeat = 0;
    while (!this.stopped) {
      const heads = await this.deps.wal.heads();
      const filter = this.deps.filterFor(this.hello.mode, this.hello.secondaryId);
      let sentAny = false;
      for (const head of heads) {
        const from = this.sent.get(head.source) ?? 0;
        if (head.lastWal <= from) continue;
        const rows = wholeAppends(await this.deps.wal.read(head.source, from, BATCH), BATCH);
        if (rows.length === 0) continue;
        const streamed = filterEvents(filter, rows, head.source);
        const attachments = await this.attachmentsOf(head.source, streamed);
        const events = streamed.map(({ row: r, filtered }) => ({
          wal: r.wal,
          stream: r.stream,
          streamVersion: r.streamVersion,
          type: r.type,
          schemaVersion: r.schemaVersion,
          payload: filtered ? '' : r.payload.toString('base64'),
          recordedAt: r.recordedAt.toISOString(),
          hash: r.hash,
          ...(filtered ? { filtered: true } : {}),
        }));
        await this.send({ t: 'batch', source: head.source, events, attachments });
        this.sent.set(head.source, rows[rows.length - 1]?.wal ?? from);
        sentAny = true;
      }
      const now = Date.now();
      if (now - lastBeat >= HEARTBEAT_MS) {
        lastBeat = now;
        await this.send({
          t: 'heartbeat',
          heads,
          at: new Date(now).toISOString(),
          ...(filter ? { filtered: { mounts: filter.mounts, namespaces: filter.namespaces } } : {}),
        });
      }
      if (!sentAny) await delay(IDLE_POLL_MS);
    }
  }

  /**
   * The attachments of the rows that go in full only, so nothing of a filtered mount (its data
   * keys included) leaves the primary.
   */
  private async attachmentsOf(
    source: string,
    streamed: readonly StreamedRow[],
  ): Promise<ReplicaAttachment[]> {
    if (!REPLAYED_SOURCES.has(source)) return [];
    const full = streamed.filter((s) => !s.filtered).map((s) => s.row);
    return full.length === 0 ? [] : this.deps.attachments(source, full);
  }

  /** Sends `f` stamped with the mode's current epoch (a demote mid-stream shows at once). */
  private send(f: UnstampedFrame): Promise<void> {
    if (this.stopped || this.socket.destroyed) return Promise.resolve();
    if (this.socket.write(stampedFrame(this.deps.stateOf(this.hello.mode), f))) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
