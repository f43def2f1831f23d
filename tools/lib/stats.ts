/** Latency statistics for the bench's own request loops (NATS and pg baselines). */
export interface Summary {
  /** successful operations */
  count: number;
  errors: number;
  durationSeconds: number;
  /** successful operations per second */
  rps: number;
  /** milliseconds */
  p50: number;
  p99: number;
}

/**
 * Nearest-rank percentile of an ascending-sorted sample (q in (0, 100]); 0 for an empty sample.
 */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((q / 100) * sorted.length);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index] ?? 0;
}

/** Collects latencies in a growable Float64Array: no per-sample allocation on the hot loop. */
export class LatencyRecorder {
  private samples = new Float64Array(1 << 16);
  private length = 0;
  errors = 0;

  record(ms: number): void {
    if (this.length === this.samples.length) {
      const bigger = new Float64Array(this.samples.length * 2);
      bigger.set(this.samples);
      this.samples = bigger;
    }
    this.samples[this.length++] = ms;
  }

  summarize(durationSeconds: number): Summary {
    const sorted = this.samples.slice(0, this.length).sort();
    return {
      count: this.length,
      errors: this.errors,
      durationSeconds,
      rps: durationSeconds > 0 ? this.length / durationSeconds : 0,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  }
}
