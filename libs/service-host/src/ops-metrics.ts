import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from '@coffer/telemetry';

/**
 * GET /metrics on the ops listener: this process's metrics in the Prometheus text format, for a
 * scraper inside the cluster (the ops listener is not the API: no token, like Boundary's).
 * Answers whether or not the process serves yet, so a stuck start-up can be watched too.
 */
export function serveOpsMetrics(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.statusCode = 405;
    res.setHeader('allow', 'GET, HEAD');
    res.end();
    return;
  }
  prometheusText().then(
    (text) => {
      res.statusCode = 200;
      res.setHeader('content-type', PROMETHEUS_CONTENT_TYPE);
      res.end(req.method === 'HEAD' ? undefined : text);
    },
    () => {
      res.statusCode = 500;
      res.end();
    },
  );
}
