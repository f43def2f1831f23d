import { Counter, Histogram } from 'prom-client';

/**
 * Request metrics of the API listener, by method, route template ("secret/data/:path*"; "unrouted"
 * when no route matched, so unknown paths cannot grow the label set) and status.
 */
const labelNames = ['method', 'route', 'status'] as const;

export const httpRequestsTotal = new Counter({
  name: 'coffer_http_requests_total',
  help: 'API requests answered, by method, route template and status',
  labelNames,
});

export const httpRequestSeconds = new Histogram({
  name: 'coffer_http_request_duration_seconds',
  help: 'API request latency (parsed head to answer), by method, route template and status',
  labelNames,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Records one answered request; `startedAt` is a process.hrtime.bigint() reading. */
export function observeHttpRequest(method: string, route: string, status: number, startedAt: bigint): void {
  const labels = { method, route, status: String(status) };
  httpRequestsTotal.inc(labels);
  httpRequestSeconds.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
}
