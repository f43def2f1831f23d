import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The service's ops listener: GET/HEAD /health answers 200 with an empty body while the service
 * serves, 503 while it starts and once shutdown has begun (so an orchestrator counts the replica
 * as ready exactly while it takes requests).
 */
export interface OpsServer {
  /** host:port actually bound */
  readonly address: string;
  markServing(): void;
  beginShutdown(): void;
  close(): Promise<void>;
}

export async function startOpsServer(address: string): Promise<OpsServer> {
  let state: 'starting' | 'serving' | 'stopping' = 'starting';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/health') res.statusCode = 404;
    else if (req.method !== 'GET' && req.method !== 'HEAD') res.statusCode = 405;
    else res.statusCode = state === 'serving' ? 200 : 503;
    res.end();
  });
  const separator = address.lastIndexOf(':');
  const host = address.slice(0, separator).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(separator + 1));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${host}:${bound.port}`,
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
