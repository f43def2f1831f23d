import { Logger } from '@nestjs/common';
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
import { clusterConnections } from '../replication.metrics';
import type { WalSource } from '../wal/wal-source';
import type { StreamFilter } from './stream-filter';
import type { StreamStatus } from './stream-status';
import { clientFrameSchema, frameReader, PSK_CIPHERS, type ClientFrame } from './stream.wire';
import { supersededPrimaryReason } from './frame-epoch';
import { messageOf } from './error-text';
import { ForwardingSession, forwardingHelloRefusal } from './forwarding-session';
import { PrimaryStream } from './primary-stream';
import { secondaryRefusal, stampedFrame } from './secondary-admission';

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

/** What the cluster listener accepted since it was built (its metrics, kept per listener too). */
export interface ListenerCounts {
  /** connections past the TLS-PSK handshake: one handshake each */
  connections: number;
  /** of those, pooled write-forwarding connections */
  forwardingConnections: number;
  /** forwarded writes received (run or refused) */
  forwardedWrites: number;
}

/**
 * The primary's cluster listener: TLS 1.2 with pre-shared keys (one per secondary, issued with
 * its activation token; the PSK identity names the secondary, so a revoked or unknown one fails
 * the handshake) and one stream, one step-down or one pooled write-forwarding session per
 * connection.
 */
export class ClusterListener {
  private readonly logger = new Logger('ReplicationListener');
  private server: Server | undefined;
  private readonly sockets = new Set<TLSSocket>();
  /** the PSK identity each connection authenticated with */
  private readonly identities = new WeakMap<TLSSocket, string>();
  private readonly sessions = new Map<TLSSocket, ForwardingSession>();
  private readonly counted: ListenerCounts = { connections: 0, forwardingConnections: 0, forwardedWrites: 0 };

  constructor(private readonly deps: ListenerDeps) {}

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  get counts(): ListenerCounts {
    return { ...this.counted };
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

  /**
   * Cuts the connections of secondaries that may no longer stream or forward (revoked, disabled,
   * demoted; a forwarding connection also once this primary's epoch moved).
   */
  enforce(): void {
    for (const socket of this.sockets) {
      const session = this.sessions.get(socket);
      if (session) {
        session.enforce();
        continue;
      }
      const who = parseIdentity(this.identities.get(socket) ?? '');
      if (!who) continue;
      const reason = secondaryRefusal(this.deps.stateOf(who.mode), who.id);
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

  /** Write forwarding: a pooled connection carrying the secondary's writes (performance only). */
  private openForwarding(socket: TLSSocket, hello: Extract<ClientFrame, { t: 'hello' }>): ForwardingSession {
    const session = new ForwardingSession(socket, hello, {
      stateOf: () => this.deps.stateOf('performance'),
      forward: (id, write) => {
        this.counted.forwardedWrites++;
        return this.deps.forward(id, write);
      },
      failed: (error) => this.logger.warn(`a forwarded write failed: ${messageOf(error)}`),
    });
    this.sessions.set(socket, session);
    this.counted.forwardingConnections++;
    clusterConnections.inc({ kind: 'forwarding' });
    session.start();
    return session;
  }

  private pskFor(identity: string): Buffer | null {
    const who = parseIdentity(identity);
    if (!who) return null;
    const state = this.deps.stateOf(who.mode);
    if (secondaryRefusal(state, who.id)) return null;
    const psk = state?.secondaries.find((s) => s.id === who.id)?.psk;
    return psk ? Buffer.from(psk, 'base64') : null;
  }

  private serve(socket: TLSSocket): void {
    this.sockets.add(socket);
    this.counted.connections++;
    const identity = this.identities.get(socket);
    let stream: PrimaryStream | undefined;
    let session: ForwardingSession | undefined;
    const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const close = () => {
      clearTimeout(helloTimer);
      this.sockets.delete(socket);
      this.sessions.delete(socket);
      stream?.stop();
    };
    const refuse = (state: ModeState | undefined, reason: string) => {
      clusterConnections.inc({ kind: 'refused' });
      socket.end(stampedFrame(state, { t: 'refused', reason }));
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
            if (stream || session) return;
            const who = parseIdentity(identity ?? '');
            const state = this.deps.stateOf(f.mode);
            if (!who || who.mode !== f.mode || who.id !== f.secondaryId) {
              refuse(state, 'the hello does not match the pre-shared key');
              return;
            }
            const forwarding = f.forwarding !== undefined || f.forward !== undefined;
            const reason =
              secondaryRefusal(state, f.secondaryId, f.clusterId) ??
              // a secondary that saw a later epoch followed a promoted cluster: this one is stale
              (f.epoch !== undefined && f.stepDown !== true && state && f.epoch > state.epoch
                ? supersededPrimaryReason(state.epoch, f.epoch)
                : undefined) ??
              (forwarding ? forwardingHelloRefusal(f) : undefined);
            if (reason) {
              refuse(state, reason);
              return;
            }
            if (f.stepDown === true) {
              clusterConnections.inc({ kind: 'step_down' });
              void this.stepDown(socket, f.mode, f.secondaryId);
              return;
            }
            if (forwarding) {
              session = this.openForwarding(socket, f);
              return;
            }
            clusterConnections.inc({ kind: 'stream' });
            stream = new PrimaryStream(socket, f, this.deps, this.logger);
            stream.start();
          } else if (f.t === 'forward') {
            // a write on a connection that did not open as a forwarding one breaks the protocol
            if (session) session.forward(f);
            else socket.destroy();
          } else {
            stream?.acked(f.positions);
          }
        },
        () => socket.destroy(),
      ),
    );
  }
}

export function splitHostPort(address: string): [string, string] {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  return [host === '' ? '0.0.0.0' : host, address.slice(colon + 1)];
}
