import { Logger } from '@nestjs/common';
import { DomainError, isDomainError } from '@coffer/contracts';
import type { TLSSocket } from 'node:tls';
import { createServer, type Server } from 'node:tls';
import type {
  ForwardedAnswer,
  ForwardedWrite,
  ReplicaAttachment,
  ReplicationMode,
} from '@coffer/contracts/replication';
import type { RawEvent } from '@coffer/event-store';
import type { ModeState } from '../state/replication-state.decider';
import type { WalSource } from '../wal/wal-source';
import type { SourceHead } from '../wal/merkle';
import { wholeAppends } from '../wal/whole-appends';
import { REPLAYED_SOURCES } from './replica-sink';
import { filterEvents, type StreamedRow, type StreamFilter } from './stream-filter';
import type { StreamStatus } from './stream-status';
import {
  clientFrameSchema,
  frame,
  frameReader,
  PSK_CIPHERS,
  type ClientFrame,
  type UnstampedFrame,
} from './stream.wire';
import { supersededPrimaryReason } from './frame-epoch';
import { forwardedResult } from './write-forwarding';

const BATCH = 500;
const IDLE_POLL_MS = 25;
const HEARTBEAT_MS = 1_000;
const HELLO_TIMEOUT_MS = 10_000;

export interface ListenerDeps {
  wal: WalSource;
  status: StreamStatus;
  /** the current state of a mode (the supervisor's cache) */
  stateOf: (mode: ReplicationMode) => ModeState | undefined;
  /** what of the logs may reach a secondary (performance paths filters) */
  filterFor: (mode: ReplicationMode, secondaryId: string) => StreamFilter | undefined;
  /** the keyrings this cluster's logs were written with, serialized (base64), for the secondaries */
  keyrings: () => Promise<string[]>;
  /** a promoted secondary of this primary's set took over: demote this cluster in `mode` */
  stepDown: (mode: ReplicationMode, secondaryId: string) => Promise<void>;
  /** what rows of a replayed source need beyond the log, barrier-encrypted as stored */
  attachments: (source: string, rows: readonly RawEvent[]) => Promise<ReplicaAttachment[]>;
  /** a write a performance secondary forwarded: run it here as the caller it resolved */
  forward: (secondaryId: string, forward: ForwardedWrite) => Promise<ForwardedAnswer>;
}

/** `<mode>:<secondary id>`: the TLS-PSK identity of a secondary. */
export const pskIdentity = (mode: ReplicationMode, id: string): string => `${mode}:${id}`;

function parseIdentity(identity: string): { mode: ReplicationMode; id: string } | undefined {
  const colon = identity.indexOf(':');
  const mode = identity.slice(0, colon);
  if (mode !== 'dr' && mode !== 'performance') return undefined;
  return { mode, id: identity.slice(colon + 1) };
}

/** `f` stamped with the mode's epoch (0 while this cluster has no state for the mode). */
const stampedFrame = (state: ModeState | undefined, f: UnstampedFrame): string =>
  frame({ ...f, epoch: state?.epoch ?? 0 });

/** Why a secondary may not stream now (undefined: it may). */
function refusal(state: ModeState | undefined, id: string, clusterId?: string): string | undefined {
  if (!state || state.state !== 'primary')
    return 'this cluster is no longer a primary of this replication set';
  if (state.revoked.includes(id)) return 'this secondary has been revoked';
  if (!state.secondaries.some((s) => s.id === id))
    return 'unknown secondary: it needs a new activation token';
  if (clusterId !== undefined && clusterId !== state.clusterId)
    return 'the replication set was re-created (new cluster id): the secondary needs a new activation token';
  return undefined;
}

/**
 * The primary's cluster listener: TLS 1.2 with pre-shared keys (one per secondary, issued with
 * its activation token; the PSK identity names the secondary, so a revoked or unknown one fails
 * the handshake) and one stream per connection.
 */
export class ClusterListener {
  private readonly logger = new Logger('ReplicationListener');
  private server: Server | undefined;
  private readonly sockets = new Set<TLSSocket>();
  /** the PSK identity each connection authenticated with */
  private readonly identities = new WeakMap<TLSSocket, string>();

  constructor(private readonly deps: ListenerDeps) {}

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  async start(address: string): Promise<void> {
    if (this.server) return;
    const [host, portText] = splitHostPort(address);
    const server = createServer(
      {
        ciphers: PSK_CIPHERS,
        minVersion: 'TLSv1.2',
        maxVersion: 'TLSv1.2',
        pskIdentityHint: 'coffer-replication',
        pskCallback: (socket, identity) => {
          const psk = this.pskFor(identity);
          if (psk) this.identities.set(socket, identity);
          return psk;
        },
      },
      (socket) => this.serve(socket),
    );
    server.on('tlsClientError', () => undefined);
    this.server = server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(portText), host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.server = undefined;
      throw error;
    }
    this.logger.log(`cluster listener on ${address}`);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Cuts the connections of secondaries that may no longer stream (revoked, disabled, demoted). */
  enforce(): void {
    for (const socket of this.sockets) {
      const who = parseIdentity(this.identities.get(socket) ?? '');
      if (!who) continue;
      const reason = refusal(this.deps.stateOf(who.mode), who.id);
      if (reason) {
        socket.end(stampedFrame(this.deps.stateOf(who.mode), { t: 'refused', reason }));
        socket.destroy();
      }
    }
  }

  /** Fencing: the secondary was promoted, so this primary demotes itself and says so. */
  private async stepDown(socket: TLSSocket, mode: ReplicationMode, secondaryId: string): Promise<void> {
    try {
      this.logger.warn(`the ${mode} secondary "${secondaryId}" was promoted: this cluster steps down`);
      await this.deps.stepDown(mode, secondaryId);
      socket.end(
        stampedFrame(this.deps.stateOf(mode), {
          t: 'refused',
          reason: 'stepped down: this cluster is no longer a primary',
        }),
      );
    } catch (error) {
      this.logger.warn(`stepping down failed: ${messageOf(error)}`);
      socket.destroy();
    }
  }

  /** Write forwarding: one write per connection, answered and closed (performance only). */
  private async forward(
    socket: TLSSocket,
    mode: ReplicationMode,
    secondaryId: string,
    forward: ForwardedWrite,
  ): Promise<void> {
    let outcome: unknown;
    if (mode !== 'performance')
      outcome = new DomainError('invalid_request', 'only performance secondaries forward');
    else
      outcome = await this.deps.forward(secondaryId, forward).catch((error: unknown) => {
        if (!isDomainError(error)) this.logger.warn(`a forwarded write failed: ${messageOf(error)}`);
        return error;
      });
    socket.end(stampedFrame(this.deps.stateOf(mode), { t: 'forwarded', result: forwardedResult(outcome) }));
  }

  private pskFor(identity: string): Buffer | null {
    const who = parseIdentity(identity);
    if (!who) return null;
    const state = this.deps.stateOf(who.mode);
    if (refusal(state, who.id)) return null;
    const psk = state?.secondaries.find((s) => s.id === who.id)?.psk;
    return psk ? Buffer.from(psk, 'base64') : null;
  }

  private serve(socket: TLSSocket): void {
    this.sockets.add(socket);
    const identity = this.identities.get(socket);
    let stream: PrimaryStream | undefined;
    const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const close = () => {
      clearTimeout(helloTimer);
      this.sockets.delete(socket);
      stream?.stop();
    };
    socket.on('close', close);
    socket.on('error', () => socket.destroy());
    socket.on(
      'data',
      frameReader(
        clientFrameSchema,
        (f: ClientFrame) => {
          if (f.t === 'hello') {
            clearTimeout(helloTimer);
            if (stream) return;
            const who = parseIdentity(identity ?? '');
            const state = this.deps.stateOf(f.mode);
            if (!who || who.mode !== f.mode || who.id !== f.secondaryId) {
              socket.end(
                stampedFrame(state, { t: 'refused', reason: 'the hello does not match the pre-shared key' }),
              );
              return;
            }
            const reason =
              refusal(state, f.secondaryId, f.clusterId) ??
              // a secondary that saw a later epoch followed a promoted cluster: this one is stale
              (f.epoch !== undefined && f.stepDown !== true && state && f.epoch > state.epoch
                ? supersededPrimaryReason(state.epoch, f.epoch)
                : undefined);
            if (reason) {
              socket.end(stampedFrame(state, { t: 'refused', reason }));
              return;
            }
            if (f.stepDown === true) {
              void this.stepDown(socket, f.mode, f.secondaryId);
              return;
            }
            if (f.forward) {
              void this.forward(socket, f.mode, f.secondaryId, f.forward);
              return;
            }
            stream = new PrimaryStream(socket, f, this.deps, this.logger);
            stream.start();
          } else {
            stream?.acked(f.positions);
          }
        },
        () => socket.destroy(),
      ),
    );
  }
}

/** One secondary's stream: every log from the secondary's positions on, then follow the heads. */
class PrimaryStream {
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

export function splitHostPort(address: string): [string, string] {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  return [host === '' ? '0.0.0.0' : host, address.slice(colon + 1)];
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : 'unknown error';
