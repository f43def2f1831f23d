import { isDomainError } from '@coffer/contracts';
import type { ForwardedAnswer, ForwardedWrite } from '@coffer/contracts/replication';
import type { TLSSocket } from 'node:tls';
import type { ModeState } from '../state/replication-state.decider';
import { forwardedWrites } from '../replication.metrics';
import { supersededPrimaryReason } from './frame-epoch';
import { secondaryRefusal, stampedFrame } from './secondary-admission';
import { FORWARDING_PROTOCOL, type ClientFrame } from './stream.wire';
import { forwardedResult } from './write-forwarding';

/**
 * A forwarding connection with nothing in flight for this long is closed. The secondary closes
 * its idle connections well before (FORWARDING_IDLE_MS in forwarding-pool.ts), so this is only a
 * bound on what a secondary that went away holds here; both sides closing at once would leave a
 * write sent meanwhile unanswered.
 */
const IDLE_MS = 10 * 60_000;
/**
 * How long a connection being cut waits for the writes already running to answer (the
 * secondary gives up on them after 15 s anyway), and then for its `refused` frame to leave.
 */
const CUT_DRAIN_MS = 15_000;
const CUT_GRACE_MS = 1_000;

type Hello = Extract<ClientFrame, { t: 'hello' }>;
type ForwardFrame = Extract<ClientFrame, { t: 'forward' }>;

export interface ForwardingDeps {
  /** this cluster's performance state, as of now */
  stateOf: () => ModeState | undefined;
  /** runs a forwarded write here as the caller the secondary resolved */
  forward: (secondaryId: string, write: ForwardedWrite) => Promise<ForwardedAnswer>;
  /** an unexpected failure of a forwarded write (the secondary only gets "internal error") */
  failed: (error: unknown) => void;
}

/** Why a forwarding hello is refused, beyond what every hello is checked for. */
export function forwardingHelloRefusal(hello: Hello): string | undefined {
  if (hello.mode !== 'performance') return 'only performance secondaries forward writes';
  const theirs = hello.forwarding ?? 1;
  if (theirs !== FORWARDING_PROTOCOL)
    return `this primary speaks write-forwarding protocol ${FORWARDING_PROTOCOL} and the secondary ${theirs}: upgrade the older cluster`;
  return undefined;
}

/**
 * The primary's side of one pooled forwarding connection: any number of `forward` frames, run
 * concurrently, each answered with its id. The handshake and the hello were checked when it
 * opened; every write is checked again before it runs (the secondary still a known, non-revoked
 * member of this primary's set, this cluster still its primary at the epoch of the hello, and
 * not superseded by the epoch the secondary sent with the write), and the supervisor's passes
 * (enforce) cut a connection that fails those checks. A cut connection runs no more writes,
 * answers the ones already running, then sends `refused` with the reason and closes: whatever
 * the secondary has no answer for when the refusal arrives was not run.
 */
export class ForwardingSession {
  private inFlight = 0;
  /** no more writes run here: cut (with the reason to send once the running ones answered) or idle */
  private cut = false;
  private cutReason: string | undefined;
  /** this primary's epoch when it accepted the hello: a connection does not outlive it */
  private readonly epoch: number;

  constructor(
    private readonly socket: TLSSocket,
    private readonly hello: Hello,
    private readonly deps: ForwardingDeps,
  ) {
    this.epoch = deps.stateOf()?.epoch ?? 0;
  }

  start(): void {
    this.socket.setTimeout(IDLE_MS, () => {
      if (this.inFlight > 0) return;
      this.cut = true;
      this.socket.end();
    });
    this.socket.write(stampedFrame(this.deps.stateOf(), { t: 'forwarding', protocol: FORWARDING_PROTOCOL }));
  }

  /** Why this connection may carry no more writes (undefined: it may). */
  refusal(): string | undefined {
    const state = this.deps.stateOf();
    return (
      secondaryRefusal(state, this.hello.secondaryId, this.hello.clusterId) ??
      (state && state.epoch !== this.epoch
        ? `this primary's epoch moved from ${this.epoch} to ${state.epoch} since the connection opened`
        : undefined)
    );
  }

  /** Cuts the connection if it may no longer carry writes (a revoke, a demote, a new epoch). */
  enforce(): void {
    const reason = this.refusal();
    if (reason) this.refuse(reason);
  }

  forward(f: ForwardFrame): void {
    if (this.cut) return;
    const own = this.deps.stateOf()?.epoch ?? 0;
    const reason = this.refusal() ?? (f.epoch > own ? supersededPrimaryReason(own, f.epoch) : undefined);
    if (reason) {
      forwardedWrites.inc({ outcome: 'refused' });
      this.refuse(reason);
      return;
    }
    this.inFlight++;
    void this.run(f);
  }

  private async run(f: ForwardFrame): Promise<void> {
    let outcome: unknown;
    try {
      outcome = await this.deps.forward(this.hello.secondaryId, f.write);
    } catch (error) {
      if (!isDomainError(error)) this.deps.failed(error);
      outcome = error;
    }
    this.inFlight--;
    forwardedWrites.inc({ outcome: outcome instanceof Error ? 'error' : 'ok' });
    // answered even once cut: it ran, and the secondary must not take it for refused
    if (this.socket.writable)
      this.socket.write(
        stampedFrame(this.deps.stateOf(), { t: 'forwarded', id: f.id, result: forwardedResult(outcome) }),
      );
    this.endIfCut();
  }

  private refuse(reason: string): void {
    if (this.cut) return;
    this.cut = true;
    this.cutReason = reason;
    setTimeout(() => this.socket.destroy(), CUT_DRAIN_MS + CUT_GRACE_MS).unref();
    this.endIfCut();
  }

  /** Once a cut connection's running writes answered: the refusal, then the end. */
  private endIfCut(): void {
    if (this.cutReason === undefined || this.inFlight > 0 || !this.socket.writable) return;
    this.socket.end(stampedFrame(this.deps.stateOf(), { t: 'refused', reason: this.cutReason }));
    setTimeout(() => this.socket.destroy(), CUT_GRACE_MS).unref();
  }
}
