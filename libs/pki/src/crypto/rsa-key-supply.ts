import type { KeyObject } from 'node:crypto';
import { rateLimited, type DomainError } from '@coffer/contracts';

export interface RsaKeySupplyOptions {
  /** 2048-bit-key equivalents allowed to wait; past it a request is refused at once */
  queueLimit: number;
  /**
   * Longest a request waits for its key. A request the replica does not expect to serve within it
   * is refused at once; one still waiting when it runs out is refused then, and no key is made for
   * it. Below the gateway's engine timeout (10 s), so a caller never gets a 504 for a key that is
   * then generated for nobody.
   */
  maxWaitMs: number;
  /** 2048-bit-key equivalents kept ready per key size that has been asked for; 0: no pool */
  poolCost: number;
}

/** RSA key generation grows with about the cube of the size: 2048 = 1, 3072 ~ 3, 4096 ~ 8. */
export const rsaKeyCost = (bits: number): number => Math.max(1, Math.round((bits / 2048) ** 3));

const REFUSED = 'too many key generations in progress on this replica; retry later';
/** A refusal telling the client when to come back (Retry-After): at least 1 s, Vault's API client's least wait. */
const refused = (retryAfterMs = 1000): DomainError =>
  rateLimited(REFUSED, Math.max(1, Math.ceil(retryAfterMs / 1000)));

interface Waiter {
  bits: number;
  cost: number;
  resolve: (key: KeyObject) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Admission control and a small pool for RSA keys (~150 ms of a core each for 2048 bits). One
 * generator runs at a time (the replica's low-priority thread), for the oldest waiting request;
 * only when nobody waits does it refill the pool of ready keys of the sizes callers asked for, so
 * a burst is served from the pool at once and the pool is made of CPU nobody else wanted. A key
 * leaves the pool once, to one caller, and lives in this process's memory only (like a key made
 * for the request). A request that cannot be served in `maxWaitMs` — judged by how fast the
 * thread has been delivering, which drops when the cores are busy, as the thread only gets what
 * others leave — is refused with 429 at once instead of queueing: no request waits into a
 * gateway timeout, no key is made for a caller that has gone, and a client is told to come back
 * instead of holding a connection.
 */
export class RsaKeySupply {
  private readonly ready = new Map<number, KeyObject[]>();
  private readonly waiters: Waiter[] = [];
  private waitingCost = 0;
  /** start of the generation in progress (performance.now()), undefined when idle */
  private producingSince: number | undefined;
  /** ms per 2048-bit equivalent as the thread has been delivering them (moving average) */
  private msPerCost = 0;
  private closed = false;

  constructor(
    private readonly generate: (bits: number) => Promise<KeyObject>,
    private readonly options: RsaKeySupplyOptions,
  ) {}

  take(bits: number): Promise<KeyObject> {
    if (this.closed) return Promise.reject(refused());
    const cost = rsaKeyCost(bits);
    let pool = this.ready.get(bits);
    // a size enters the pool once asked for, if the pool can hold one of its keys
    if (!pool && cost <= this.options.poolCost) this.ready.set(bits, (pool = []));
    const key = pool?.shift();
    if (key) {
      this.produce();
      return Promise.resolve(key);
    }
    // nobody waiting ahead: the request gets its chance however slow the thread has been (a
    // 4096-bit key on a busy replica takes seconds), bounded by maxWaitMs as every waiter
    if (
      this.waitingCost + cost > this.options.queueLimit ||
      (this.waiters.length > 0 && this.expectedWaitMs(cost) > this.options.maxWaitMs)
    )
      // come back when the requests ahead should be served, within the wait bound
      return Promise.reject(refused(Math.min(this.expectedWaitMs(0), this.options.maxWaitMs)));
    return new Promise<KeyObject>((resolve, reject) => {
      const waiter: Waiter = {
        bits,
        cost,
        resolve,
        reject,
        timer: setTimeout(() => this.remove(waiter)?.reject(refused()), this.options.maxWaitMs),
      };
      this.waiters.push(waiter);
      this.waitingCost += cost;
      this.produce();
    });
  }

  /** Keys ready for `bits` (tests and metrics). */
  readyCount(bits: number): number {
    return this.ready.get(bits)?.length ?? 0;
  }

  get pending(): number {
    return this.waiters.length;
  }

  /** Refuses every waiter and drops the pool. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiters]) this.remove(waiter)?.reject(refused());
    this.ready.clear();
  }

  /**
   * The waiters ahead plus the new request, at the pace of the last keys; a generation running
   * longer than that pace already is the better guess of it.
   */
  private expectedWaitMs(cost: number): number {
    const running = this.producingSince === undefined ? 0 : performance.now() - this.producingSince;
    const pace = Math.max(this.msPerCost, running);
    return (this.waitingCost + cost) * pace;
  }

  private produce(): void {
    if (this.producingSince !== undefined || this.closed) return;
    const bits = this.waiters[0]?.bits ?? this.sizeToRefill();
    if (bits === undefined) return;
    const started = performance.now();
    this.producingSince = started;
    this.generate(bits)
      .then(
        (key) => {
          const sample = (performance.now() - started) / rsaKeyCost(bits);
          this.msPerCost = this.msPerCost === 0 ? sample : 0.7 * this.msPerCost + 0.3 * sample;
          this.deliver(bits, key);
        },
        (error: unknown) => {
          const failure = error instanceof Error ? error : new Error(String(error));
          const waiter = this.waiters.find((w) => w.bits === bits);
          if (waiter) this.remove(waiter)?.reject(failure);
          // a refill that fails stops refilling that size (no retry loop)
          else this.ready.delete(bits);
        },
      )
      .finally(() => {
        this.producingSince = undefined;
        this.produce();
      });
  }

  /** To the oldest waiter of that size, else to the pool (a waiter that timed out leaves its key there). */
  private deliver(bits: number, key: KeyObject): void {
    if (this.closed) return;
    const waiter = this.waiters.find((w) => w.bits === bits);
    if (waiter) return this.remove(waiter)?.resolve(key);
    const pool = this.ready.get(bits);
    if (pool && (pool.length + 1) * rsaKeyCost(bits) <= this.options.poolCost) pool.push(key);
  }

  private sizeToRefill(): number | undefined {
    for (const [bits, pool] of this.ready)
      if ((pool.length + 1) * rsaKeyCost(bits) <= this.options.poolCost) return bits;
    return undefined;
  }

  private remove(waiter: Waiter): Waiter | undefined {
    const i = this.waiters.indexOf(waiter);
    if (i < 0) return undefined;
    this.waiters.splice(i, 1);
    this.waitingCost -= waiter.cost;
    clearTimeout(waiter.timer);
    return waiter;
  }
}
