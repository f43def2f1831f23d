import { createServer, type Server } from 'node:http';

/**
 * The operations listener (Boundary controller style): GET/HEAD /health answers an empty body,
 * 200 while the API listener serves, 503 once shutdown began (during the graceful wait the API
 * still serves requests) or when the API listener is down.
 */
export function createOpsServer(healthStatus: () => number): Server {
  return createServer((req, res) => {
    const q = req.url?.indexOf('?') ?? -1;
    const path = q < 0 ? req.url : req.url?.slice(0, q);
    res.setHeader('cache-control', 'no-store');
    if (path !== '/health') {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.statusCode = 405;
      res.setHeader('allow', 'GET, HEAD');
      res.end();
      return;
    }
    res.statusCode = healthStatus();
    res.end();
  });
}
