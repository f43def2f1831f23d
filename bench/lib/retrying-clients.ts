import { LatencyRecorder } from '../../tools/lib/stats';
import type { HttpSummary } from './http-load';

export interface RetryingClientsOptions {
  origin: string;
  /** clients, each with one request in flight at a time */
  clients: number;
  durationSeconds: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON body */
  body: string;
  /**
   * How long a client waits after a 429 or 503 without Retry-After: 1 s, the least wait of
   * Vault's Go API client (MinRetryWait) between retries
   */
  defaultRetryAfterMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryAfterMs(header: string | null, fallback: number): number {
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : fallback;
}

/**
 * Clients that behave like real ones towards admission control: each keeps one request in
 * flight and, when refused (429, 503), waits as told (Retry-After, else `defaultRetryAfterMs`)
 * before asking again. autocannon re-sends at once, which turns a full queue into thousands of
 * refusals a second that load the cores themselves — a load no client of a secrets service
 * produces, and not "N requests running at once". Latency counts successful answers only;
 * refusals are `non2xx`.
 */
export async function runRetryingClients(opts: RetryingClientsOptions): Promise<HttpSummary> {
  const latencies = new LatencyRecorder();
  let non2xx = 0;
  const started = performance.now();
  const deadline = started + opts.durationSeconds * 1000;
  const fallback = opts.defaultRetryAfterMs ?? 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const res = await fetch(`${opts.origin}${opts.path}`, {
          method: opts.method,
          headers: { ...opts.headers, 'content-type': 'application/json' },
          body: opts.body,
        });
        await res.arrayBuffer();
        if (res.ok) {
          latencies.record(performance.now() - sent);
          continue;
        }
        non2xx++;
        if (res.status === 429 || res.status === 503)
          await sleep(
            Math.min(retryAfterMs(res.headers.get('retry-after'), fallback), deadline - performance.now()),
          );
      } catch {
        latencies.errors++;
        await sleep(fallback);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, client));
  return { ...latencies.summarize((performance.now() - started) / 1000), non2xx };
}
