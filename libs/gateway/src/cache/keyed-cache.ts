/**
 * Values per key with an expiry each, shared in-flight loads, and invalidation that also keeps a
 * running load from being cached (generation counter, see CachedValue). Bounded: beyond
 * `maxEntries` the oldest entries are dropped (insertion order).
 */
export class KeyedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, Promise<V>>();
  private generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  peek(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /**
   * The cached value, or the result of `load`. `ttlOf` says how long a loaded value may be kept
   * (0 or less: not cached at all).
   */
  get(key: K, load: () => Promise<V>, ttlOf: (value: V) => number): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.loadAndStore(key, load, ttlOf);
      this.loading.set(key, pending);
    }
    return pending;
  }

  set(key: K, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Loads running now serve their callers but are not cached (their source may have changed). */
  cancelLoads(): void {
    this.generation++;
    this.loading.clear();
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }

  private async loadAndStore(key: K, load: () => Promise<V>, ttlOf: (value: V) => number): Promise<V> {
    const generation = this.generation;
    try {
      const value = await load();
      if (generation === this.generation) this.set(key, value, ttlOf(value));
      return value;
    } finally {
      if (generation === this.generation) this.loading.delete(key);
    }
  }
}
