import { startHarness } from './libs/gateway/test/harness';
import autocannon from 'autocannon';
(async () => {
  const h = await startHarness();
  const run = (opts: any) => new Promise<any>((resolve) => autocannon({ url: h.url, connections: 20, duration: 5, headers: { 'x-service-token': 'root-token' }, ...opts }, (_e: any, r: any) => resolve(r)));
  for (const [name, opts] of [
    ['GET echo', { path: '/v1/test/echo/x' }],
    ['LIST folder', { path: '/v1/test/folder/x', method: 'LIST' }],
    ['POST echo', { path: '/v1/test/echo/x', method: 'POST', body: JSON.stringify({ a: 1, b: 'x'.repeat(200) }) }],
  ] as any[]) {
    const r = await run(opts);
    console.log(name, Math.round(r.requests.average), 'req/s', 'p99', r.latency.p99, 'ms', 'non2xx', r.non2xx, 'errors', r.errors);
  }
  await h.close();
})();
