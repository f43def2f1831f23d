import autocannon from 'autocannon';
import type { Summary } from '../../tools/lib/stats';

export interface HttpLoadOptions {
  title: string;
  /** origin, e.g. http://127.0.0.1:8200 */
  origin: string;
  connections: number;
  durationSeconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** request path for the n-th request (n counts from 0 across all connections) */
  path: (n: number) => string;
}

export interface HttpSummary extends Summary {
  non2xx: number;
}

/** Drives one HTTP scenario with autocannon and keeps 2xx answers only as throughput. */
export async function runHttpLoad(opts: HttpLoadOptions): Promise<HttpSummary> {
  let n = 0;
  const result = await autocannon({
    title: opts.title,
    url: opts.origin,
    connections: opts.connections,
    duration: opts.durationSeconds,
    timeout: 30,
    requests: [
      {
        method: opts.method ?? 'GET',
        headers: {
          ...opts.headers,
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: opts.body,
        setupRequest: (req) => ({ ...req, path: opts.path(n++) }),
      },
    ],
  });
  const ok = result['2xx'];
  return {
    count: ok,
    errors: result.errors,
    non2xx: result.non2xx,
    durationSeconds: result.duration,
    rps: result.duration > 0 ? ok / result.duration : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}
