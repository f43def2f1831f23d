import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The ops listener (Boundary controller style), shared by the gateway and the engine services:
 * GET/HEAD /health answers 200 with an empty body while the process serves, 503 while it starts,
 * once shutdown has begun (during a graceful wait requests are still served, so load balancers
 * move traffic away first) and whenever `isUp` says the API side is down. An orchestrator thus
 * counts the replica as ready exactly while it takes requests.
 */
export interface OpsServer {
  /** host:port actually bound */
  readonly address: string;
  /** the socket actually bound (the resolved IP, for callers that format a URL) */
  readonly bound: AddressInfo;
  markServing(): void;
  beginShutdown(): void;
  close(): Promise<void>;
}

/** "127.0.0.1:8200" / "[::1]:8200" / "localhost:0" -> host and port. */
export function parseListenAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw new Error(`invalid listener address "${address}" (expected host:port)`);
  return { host: m[1] ?? m[2] ?? '', port };
}

export async function startOpsServer(address: string, isUp: () => boolean = () => true): Promise<OpsServer> {
  let state: 'starting' | 'serving' | 'stopping' = 'starting';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    res.setHeader('cache-control', 'no-store');
    if (path !== '/health') res.statusCode = 404;
    else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.statusCode = 405;
      res.setHeader('allow', 'GET, HEAD');
    } else res.statusCode = state === 'serving' && isUp() ? 200 : 503;
    res.end();
  });
  const { host, port } = parseListenAddress(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${host}:${bound.port}`,
    bound,
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
