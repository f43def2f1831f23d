import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { enforceClientCertificates, type ListenerTlsOptions } from './listener-tls';

/**
 * The ops listener (Boundary controller style), shared by the gateway and the engine services.
 * GET/HEAD /health answers with an empty body:
 * - 200 while the process serves and its dependencies answer (`checks`);
 * - 503 while it starts and once shutdown has begun (during graceful_shutdown_wait_duration
 *   requests are still served, so load balancers move traffic away first);
 * - 500 when a check fails or does not answer within `checkTimeoutMs` (NATS or Postgres lost).
 * An orchestrator thus counts the replica as ready exactly while it takes requests. Other GET
 * routes (`/metrics`) are registered with `route`.
 */
export interface OpsServer {
  /** host:port actually bound */
  readonly address: string;
  /** the socket actually bound (the resolved IP, for callers that format a URL) */
  readonly bound: AddressInfo;
  /** "http://127.0.0.1:9203" or "https://..." */
  readonly url: string;
  /** Serves GET/HEAD `path` (e.g. "/metrics") with `handler`; a throwing handler answers 500. */
  route(path: string, handler: OpsRouteHandler): void;
  markServing(): void;
  beginShutdown(): void;
  close(): Promise<void>;
}

export type OpsRouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A dependency /health depends on: resolves true (or void) when healthy. */
export type HealthCheck = () => boolean | void | Promise<boolean | void>;

export interface OpsServerOptions {
  /** named checks; /health is 500 when any fails, throws or times out */
  checks?: Readonly<Record<string, HealthCheck>>;
  /** default 2 s: below the usual probe time-out, so the probe sees a 500 rather than its own time-out */
  checkTimeoutMs?: number;
  /**
   * default 1 s: probes arriving within it share one run of the checks (a readiness poll every
   * 100 ms must not open a Postgres connection every 100 ms)
   */
  checkCacheMs?: number;
  /** absent = plain HTTP */
  tls?: ListenerTlsOptions;
  /** told which check failed (rate-limiting is the caller's: probes come every few seconds) */
  onUnhealthy?: (check: string, reason: string) => void;
}

/** "127.0.0.1:8200" / "[::1]:8200" / "localhost:0" -> host and port. */
export function parseListenAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new Error(`invalid listener address "${address}" (expected host:port)`);
  return { host: m[1] ?? m[2] ?? '', port };
}

async function runCheck(check: HealthCheck, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const verdict = Promise.resolve()
      .then(check)
      .then(
        (ok) => (ok === false ? 'unavailable' : undefined),
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
    return await Promise.race([verdict, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startOpsServer(address: string, options: OpsServerOptions = {}): Promise<OpsServer> {
  let state: 'starting' | 'serving' | 'stopping' = 'starting';
  const checkTimeoutMs = options.checkTimeoutMs ?? 2000;
  const checkCacheMs = options.checkCacheMs ?? 1000;
  let lastRun: { at: number; status: Promise<number> } | undefined;
  const runChecks = async (): Promise<number> => {
    const checks = Object.entries(options.checks ?? {});
    const failures = await Promise.all(checks.map(([, check]) => runCheck(check, checkTimeoutMs)));
    let status = 200;
    failures.forEach((reason, i) => {
      if (reason === undefined) return;
      status = 500;
      options.onUnhealthy?.(checks[i]?.[0] ?? '?', reason);
    });
    return status;
  };
  const health = async (): Promise<number> => {
    if (state !== 'serving') return 503;
    const now = Date.now();
    if (lastRun === undefined || now - lastRun.at >= checkCacheMs) lastRun = { at: now, status: runChecks() };
    const status = await lastRun.status;
    // Shutdown may have begun while the checks ran.
    return (state as string) === 'serving' ? status : 503;
  };
  const routes = new Map<string, OpsRouteHandler>([
    [
      '/health',
      async (_req, res) => {
        res.statusCode = await health();
        res.end();
      },
    ],
  ]);
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    res.setHeader('cache-control', 'no-store');
    const handler = routes.get(path);
    if (handler === undefined) {
      res.statusCode = 404;
      res.end();
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.statusCode = 405;
      res.setHeader('allow', 'GET, HEAD');
      res.end();
    } else {
      Promise.resolve()
        .then(() => handler(req, res))
        .catch(() => {
          if (!res.headersSent) res.statusCode = 500;
          res.end();
        });
    }
  };
  let server: Server;
  if (options.tls) {
    const https = createHttpsServer(options.tls, onRequest);
    enforceClientCertificates(https, options.tls);
    server = https;
  } else server = createServer(onRequest);
  const { host, port } = parseListenAddress(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const urlHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    address: `${host}:${bound.port}`,
    bound,
    url: `${options.tls ? 'https' : 'http'}://${urlHost}:${bound.port}`,
    route: (path, handler) => {
      routes.set(path, handler);
    },
    markServing: () => {
      if (state === 'starting') state = 'serving';
    },
    beginShutdown: () => {
      state = 'stopping';
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
