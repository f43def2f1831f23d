import { DomainError } from '@coffer/contracts';

/**
 * Admission control for expensive key generation (RSA: ~100-200 ms of a core each). At most
 * `concurrency` run at once per replica and at most `limit` wait; past that a request is refused
 * at once with 429, so a burst of RSA issues cannot make every other request of the replica (and
 * of the engines sharing its cores) wait behind it.
 */
export class KeygenQueue {
  private running = 0;
  private readonly waiting: { start: () => void; cost: number }[] = [];
  private waitingCost = 0;

  constructor(
    private readonly concurrency: number,
    private readonly limit: number,
  ) {}

  /**
   * `cost` weighs a job against the limit (a 4096-bit RSA key costs ~8 of 2048-bit ones), so the
   * longest wait the queue admits stays about the same whatever the key sizes.
   */
  async run<T>(job: () => Promise<T>, cost = 1): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waitingCost + cost > this.limit)
        throw new DomainError(
          'rate_limited',
          'too many key generations in progress on this replica; retry later',
        );
      this.waitingCost += cost;
      await new Promise<void>((start) => this.waiting.push({ start, cost }));
      this.waitingCost -= cost;
    } else this.running++;
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter; otherwise it is freed
      if (next) next.start();
      else this.running--;
    }
  }

  get pending(): number {
    return this.waiting.length;
  }
}
