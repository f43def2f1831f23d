/**
 * Runs the uses of one token one after another on this replica. A use is read, decide, append
 * at the read version; run a hundred ways at once, all but one lose each round and give up after
 * their retries (500s). In line, a use conflicts only with other replicas' uses of the same token,
 * which a retry absorbs. Different tokens never wait for each other.
 */
export class TokenUseQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(accessor: string, use: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(accessor) ?? Promise.resolve();
    const run = previous.then(use);
    const tail = run.catch(() => undefined);
    this.tails.set(accessor, tail);
    void tail.then(() => {
      if (this.tails.get(accessor) === tail) this.tails.delete(accessor);
    });
    return run;
  }

  /** Tokens with uses waiting or running (for tests of the bookkeeping). */
  get size(): number {
    return this.tails.size;
  }
}
