import type { FencedCache, KvReadFence } from './read-fence';

/** A cached lookup: the row, or null when the lookup found nothing. */
export type Cached<R> = R | null;

export interface StreamCacheLimits {
  /** streams kept at most; beyond, the streams cached first are dropped */
  maxStreams: number;
  /** bytes of ciphertext kept at most (secrets can be megabytes: the count alone is no bound) */
  maxBytes: number;
  /** a row larger than this is never kept (it would evict many small ones) */
  maxRowBytes: number;
}

export const DEFAULT_STREAM_CACHE_LIMITS: StreamCacheLimits = {
  maxStreams: 10_000,
  maxBytes: 64 * 1024 * 1024,
  maxRowBytes: 1024 * 1024,
};

interface StreamRows<R> {
  rows: Map<string, Cached<R>>;
  bytes: number;
}

/**
 * Read-model rows by secret stream and lookup (e.g. the version asked for), kept coherent by
 * KvReadFence: it holds what Postgres holds (ciphertext and barrier-wrapped data keys, never
 * plaintext), and any event of a stream drops all of that stream's rows. Bounded by streams and
 * by bytes (`sizeOf`); the streams cached first go first. Rows are shared by every reader:
 * callers must not change them.
 */
export class StreamCache<R> implements FencedCache {
  private readonly streams = new Map<string, StreamRows<R>>();
  private bytes = 0;

  constructor(
    private readonly fence: KvReadFence,
    private readonly sizeOf: (row: R) => number,
    private readonly limits: StreamCacheLimits = DEFAULT_STREAM_CACHE_LIMITS,
  ) {
    fence.register(this);
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * The row of `lookup` in `stream` (null: known not to exist), or what `load` reads from the
   * read model, which is kept if the fence vouches that the stream did not change meanwhile.
   */
  async read(stream: string, lookup: string, load: () => Promise<R | undefined>): Promise<R | undefined> {
    const at = await this.fence.sync();
    const hit = this.streams.get(stream)?.rows.get(lookup);
    if (hit !== undefined) return hit ?? undefined;
    const row = await load();
    if (this.fence.unchangedSince(at, stream)) this.store(stream, lookup, row ?? null);
    return row;
  }

  invalidate(streams: readonly string[]): void {
    for (const stream of streams) this.drop(stream);
  }

  clear(): void {
    this.streams.clear();
    this.bytes = 0;
  }

  private drop(stream: string): void {
    const cached = this.streams.get(stream);
    if (!cached) return;
    this.streams.delete(stream);
    this.bytes -= cached.bytes;
  }

  private store(stream: string, lookup: string, row: Cached<R>): void {
    const bytes = row === null ? 0 : this.sizeOf(row);
    if (bytes > this.limits.maxRowBytes) return;
    let cached = this.streams.get(stream);
    if (!cached) {
      cached = { rows: new Map(), bytes: 0 };
      this.streams.set(stream, cached);
    }
    if (cached.rows.has(lookup)) return;
    cached.rows.set(lookup, row);
    cached.bytes += bytes;
    this.bytes += bytes;
    while (this.streams.size > this.limits.maxStreams || this.bytes > this.limits.maxBytes) {
      const oldest = this.streams.keys().next();
      if (oldest.done) break;
      this.drop(oldest.value);
    }
  }
}
