/**
 * One value loaded from another service, cached until invalidated (broadcast) or older than
 * `maxAgeMs` (a safety net for a missed broadcast). Concurrent callers share one load; a load that
 * was running when an invalidation arrived serves its callers but is not cached, because it may
 * have read the state from before the change.
 */
export class CachedValue<T> {
  private value: T | undefined;
  private loadedAt = 0;
  private generation = 0;
  private loading: Promise<T> | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    if (this.value !== undefined && this.now() - this.loadedAt < this.maxAgeMs)
      return Promise.resolve(this.value);
    this.loading ??= this.refresh();
    return this.loading;
  }

  /** The cached value if fresh, without loading. */
  peek(): T | undefined {
    return this.value !== undefined && this.now() - this.loadedAt < this.maxAgeMs ? this.value : undefined;
  }

  invalidate(): void {
    this.generation++;
    this.value = undefined;
    this.loading = undefined;
  }

  private async refresh(): Promise<T> {
    const generation = this.generation;
    try {
      const value = await this.load();
      if (generation === this.generation) {
        this.value = value;
        this.loadedAt = this.now();
      }
      return value;
    } finally {
      if (generation === this.generation) this.loading = undefined;
    }
  }
}
