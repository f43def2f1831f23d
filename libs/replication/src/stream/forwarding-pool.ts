import type { TLSSocket } from 'node:tls';
import { DomainError } from '@coffer/contracts';
import type { ForwardedAnswer, ForwardedWrite } from '@coffer/contracts/replication';
import type { PrimaryLink } from '../state/replication-state.decider';
import { judgeEpoch, staleEpochReason } from './frame-epoch';
import { connectToPrimary } from './primary-connection';
import { FORWARDING_PROTOCOL, frame, frameReader, serverFrameSchema, type ServerFrame } from './stream.wire';
import { answerOf, PRIMARY_UNREACHABLE } from './write-forwarding';

/** a forwarded write: waiting for the connection (and its handshake), the primary's engine call and its answer */
const FORWARD_TIMEOUT_MS = 15_000;
/** an open connection with nothing in flight for this long is closed (the primary's bound is longer) */
const FORWARDING_IDLE_MS = 30_000;
/** TCP keepalive of an open connection, so a dead peer is noticed between writes */
const KEEPALIVE_MS = 10_000;
/** writes in flight on the connection at once; more wait, unsent, for a slot */
const MAX_IN_FLIGHT = 128;

export interface ForwardingSelf {
  apiAddr: string;
  clusterAddr: string;
}

const unreachable = (): DomainError => new DomainError('service_unavailable', PRIMARY_UNREACHABLE);
const refusedBy = (reason: string): DomainError =>
  new DomainError('service_unavailable', `the performance primary refused the write: ${reason}`);

/** A write waiting for its answer; `sentAt` once it was written to the connection. */
interface Pending {
  write: ForwardedWrite;
  /** the highest primary epoch this secondary had seen when the write came */
  epoch: number;
  settle: (outcome: ForwardedAnswer | DomainError) => void;
  settled: boolean;
  owner?: ForwardingConnection;
  sentAt?: number;
}

/**
 * A performance secondary's pooled connection to its primary for forwarded writes: one TLS-PSK
 * connection (one handshake, authenticated by this secondary's pre-shared key) carries every
 * write, concurrently, each matched to its answer by id and failed on its own after 15 s. The
 * connection is opened at the first write, closed after 30 s without one, and opened again at
 * the next write after it closed or dropped. A write is written to the connection once and never
 * again: one in flight when the connection drops fails with PRIMARY_UNREACHABLE (it may have been
 * applied); only writes still waiting for the connection, never written, go on the next one.
 */
export class ForwardingPool {
  private current: ForwardingConnection | undefined;
  private closed = false;

  constructor(
    readonly link: PrimaryLink,
    private readonly self: ForwardingSelf,
  ) {}

  /** whether a connection is open and accepted by the primary (for status and tests) */
  get connected(): boolean {
    return this.current?.isReady ?? false;
  }

  /** Runs `write` on the primary; `epoch` is the highest primary epoch this secondary has seen. */
  forward(write: ForwardedWrite, epoch: number): Promise<ForwardedAnswer> {
    return new Promise<ForwardedAnswer>((resolve, reject) => {
      const pending: Pending = {
        write,
        epoch,
        settled: false,
        settle: (outcome) => {
          if (pending.settled) return;
          pending.settled = true;
          clearTimeout(timer);
          if (outcome instanceof DomainError) reject(outcome);
          else resolve(outcome);
        },
      };
      const timer = setTimeout(() => {
        pending.owner?.timedOut(pending);
        pending.settle(unreachable());
      }, FORWARD_TIMEOUT_MS);
      timer.unref();
      if (this.closed) pending.settle(unreachable());
      else this.enqueue([pending]);
    });
  }

  /** Closes the connection (the secondary left the set, follows another primary, shuts down). */
  close(): void {
    this.closed = true;
    this.current?.fail(unreachable());
    this.current = undefined;
  }

  private enqueue(writes: Pending[]): void {
    const waiting = writes.filter((p) => !p.settled);
    if (waiting.length === 0) return;
    if (this.closed) {
      for (const p of waiting) p.settle(unreachable());
      return;
    }
    if (!this.current?.usable) {
      const epoch = Math.max(...waiting.map((p) => p.epoch));
      const connection = new ForwardingConnection(
        this.link,
        { ...this.self, epoch },
        {
          closed: (c) => {
            if (this.current === c) this.current = undefined;
          },
          // never written: safe to send on the next connection
          unsent: (rest) => this.enqueue(rest),
        },
      );
      this.current = connection;
    }
    for (const p of waiting) this.current.enqueue(p);
  }
}

interface ConnectionEvents {
  closed: (connection: ForwardingConnection) => void;
  unsent: (writes: Pending[]) => void;
}

/** One forwarding connection: the hello, then `forward` frames out and their answers back. */
class ForwardingConnection {
  private readonly socket: TLSSocket;
  private ready = false;
  private done = false;
  private nextId = 0;
  private readonly waiting: Pending[] = [];
  private readonly inFlight = new Map<number, Pending>();
  private lastFrameAt = Date.now();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    link: PrimaryLink,
    self: ForwardingSelf & { epoch: number },
    private readonly events: ConnectionEvents,
  ) {
    const socket = connectToPrimary(link, 'performance');
    this.socket = socket;
    socket.on('secureConnect', () => {
      socket.setKeepAlive(true, KEEPALIVE_MS);
      socket.write(
        frame({
          t: 'hello',
          mode: 'performance',
          clusterId: link.clusterId,
          secondaryId: link.secondaryId,
          apiAddr: self.apiAddr,
          clusterAddr: self.clusterAddr,
          positions: [],
          epoch: self.epoch,
          forwarding: FORWARDING_PROTOCOL,
        }),
      );
    });
    socket.on(
      'data',
      frameReader(
        serverFrameSchema,
        (f) => this.onFrame(f),
        () => this.fail(unreachable(), true),
      ),
    );
    socket.on('error', () => this.fail(unreachable(), true));
    socket.on('close', () => this.fail(unreachable(), true));
  }

  get isReady(): boolean {
    return this.ready && !this.done;
  }

  /** whether a new write may be queued here: not closed, not closing */
  get usable(): boolean {
    return !this.done && !this.socket.destroyed && this.socket.writable;
  }

  enqueue(p: Pending): void {
    p.owner = this;
    clearTimeout(this.idleTimer);
    this.socket.ref();
    this.waiting.push(p);
    this.pump();
  }

  /**
   * `p` gave up waiting. A write that was sent and met silence since is taken as a dead
   * connection (a peer gone without a FIN): the others in flight fail too, the next write opens
   * a new one.
   */
  timedOut(p: Pending): void {
    const waitingAt = this.waiting.indexOf(p);
    if (waitingAt >= 0) this.waiting.splice(waitingAt, 1);
    for (const [id, q] of this.inFlight) if (q === p) this.inFlight.delete(id);
    if (p.sentAt !== undefined && this.lastFrameAt < p.sentAt) this.fail(unreachable(), true);
    else this.idleIfQuiet();
  }

  /**
   * Ends the connection and fails the writes in flight on it with `error`. The writes still
   * waiting were never sent: after a drop (`dropped`) of a connection that had opened they go on
   * the next one; otherwise (it never opened, the primary refused) they fail as well.
   */
  fail(error: DomainError, dropped = false): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.idleTimer);
    this.socket.destroy();
    this.events.closed(this);
    const inFlight = [...this.inFlight.values()];
    const waiting = this.waiting.splice(0);
    this.inFlight.clear();
    for (const p of inFlight) p.settle(error);
    if (dropped && this.ready) this.events.unsent(waiting);
    else for (const p of waiting) p.settle(error);
  }

  private pump(): void {
    if (!this.ready || this.done) return;
    while (this.inFlight.size < MAX_IN_FLIGHT) {
      const p = this.waiting.shift();
      if (!p) break;
      if (p.settled) continue;
      const id = this.nextId++;
      p.sentAt = Date.now();
      this.inFlight.set(id, p);
      this.socket.write(frame({ t: 'forward', id, epoch: p.epoch, write: p.write }));
    }
  }

  private onFrame(f: ServerFrame): void {
    if (this.done) return;
    this.lastFrameAt = Date.now();
    if (f.t === 'refused') return this.fail(refusedBy(f.reason));
    const known = Math.max(0, ...[...this.inFlight.values(), ...this.waiting].map((p) => p.epoch));
    // a superseded primary: none of its answers is taken, and the connection is not kept
    if (judgeEpoch(known, f.epoch) === 'stale')
      return this.fail(new DomainError('service_unavailable', staleEpochReason(known, f.epoch)));
    switch (f.t) {
      case 'forwarding':
        this.ready = true;
        this.pump();
        this.idleIfQuiet();
        return;
      case 'forwarded': {
        const p = this.inFlight.get(f.id);
        if (!p) return; // timed out before: its caller was answered already
        this.inFlight.delete(f.id);
        p.settle(answerOf(f));
        this.pump();
        this.idleIfQuiet();
        return;
      }
      case 'welcome':
        return this.fail(
          refusedBy(`it does not speak write-forwarding protocol ${FORWARDING_PROTOCOL}: upgrade it`),
        );
      case 'keyring':
      case 'resync':
      case 'batch':
      case 'heartbeat':
        // a stream frame on a forwarding connection: not the protocol
        return this.fail(unreachable(), true);
    }
  }

  /** Nothing in flight: let the process exit meanwhile, and close after a while. */
  private idleIfQuiet(): void {
    if (this.done || this.inFlight.size > 0 || this.waiting.length > 0) return;
    this.socket.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight.size > 0 || this.waiting.length > 0) return;
      this.done = true;
      this.events.closed(this);
      this.socket.end();
    }, FORWARDING_IDLE_MS);
    this.idleTimer.unref();
  }
}
