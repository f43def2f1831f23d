import autocannon from 'autocannon';
import type { Summary } from '../../tools/lib/stats';

export interface HttpLoadOptions {
  title: string;
  /** origin, e.g. http://127.0.0.1:8200 */
  origin: string;
  connections: number;
  durationSeconds: number;
  /** a fixed rate (requests/s over all connections) instead of as fast as the server answers */
  overallRate?: number;
  /** the method, or the method of the n-th request (a mixed read/write load) */
  method?: string | ((n: number) => string);
  headers?: Record<string, string>;
  /** the body, or the body of the n-th request (e.g. a fresh authorization code each; none: undefined) */
  body?: string | ((n: number) => string | undefined);
  /** Content-Type of a body (default application/json) */
  contentType?: string;
  /** request path for the n-th request (n counts from 0 across all connections) */
  path: (n: number) => string;
  /** sees each answer (e.g. to keep the codes an authorize scenario produced) */
  onResponse?: (status: number, body: string) => void;
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
    ...(opts.overallRate !== undefined ? { overallRate: opts.overallRate } : {}),
    duration: opts.durationSeconds,
    timeout: 30,
    requests: [
      {
        method: typeof opts.method === 'string' ? opts.method : 'GET',
        headers: {
          ...opts.headers,
          ...(opts.body !== undefined ? { 'content-type': opts.contentType ?? 'application/json' } : {}),
        },
        ...(typeof opts.body === 'string' ? { body: opts.body } : {}),
        setupRequest: (req) => {
          const i = n++;
          const own = typeof opts.body === 'function' ? opts.body(i) : undefined;
          const body = own === undefined ? {} : { body: own };
          const method = typeof opts.method === 'function' ? { method: opts.method(i) } : {};
          // autocannon writes Content-Length into a headers object it carries over to the next
          // request: a GET after a POST announced the POST's length, and the server took the next
          // request's bytes for its body (the mixed scenario's stalls and errors). It is set again
          // for a request with a body.
          const { ['Content-Length']: _stale, ...headers } = req.headers ?? {};
          return { ...req, headers, path: opts.path(i), ...body, ...method };
        },
        ...(opts.onResponse ? { onResponse: opts.onResponse } : {}),
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
