import { performance } from 'node:perf_hooks';
import { LatencyRecorder, type Summary } from '../../tools/lib/stats';

export interface LoopOptions {
  durationSeconds: number;
  /** operations kept in flight at once */
  inflight: number;
  op: () => Promise<unknown>;
}

/**
 * Closed-loop load: `inflight` workers each run `op` back to back until the duration is over.
 * Used for the NATS and pg baselines, which have no HTTP front for autocannon to drive.
 */
export async function runClosedLoop({ durationSeconds, inflight, op }: LoopOptions): Promise<Summary> {
  const recorder = new LatencyRecorder();
  const start = performance.now();
  const deadline = start + durationSeconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await op();
        recorder.record(performance.now() - t0);
      } catch {
        recorder.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return recorder.summarize((performance.now() - start) / 1000);
}
