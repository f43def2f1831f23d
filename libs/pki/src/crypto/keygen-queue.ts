import { DomainError } from '@coffer/contracts';

/**
 * Admission control for expensive key generation (RSA: ~100-200 ms of a core each). At most
 * `concurrency` run at once per replica and at most `limit` wait; past that a request is refused
 * at once with 429, so a burst of RSA issues cannot make every other request of the replica (and
 * of the engines sharing its cores) wait behind it.
 */
export class KeygenQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly limit: number,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.limit)
        throw new DomainError(
          'rate_limited',
          'too many key generations in progress on this replica; retry later',
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter; otherwise it is freed
      if (next) next();
      else this.running--;
    }
  }

  get pending(): number {
    return this.waiting.length;
  }
}
