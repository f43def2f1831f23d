import { randomBytes } from 'node:crypto';
import { freePort } from '@coffer/testing';
import { LatencyRecorder } from '../../tools/lib/stats';
import { api, startDevServer, type ApiClient } from '../../test/support';
import { runScenario, type BenchSuite, type Scenario } from '../lib/suite';

const RATE = 500;
const SAMPLE_MS = 20;

interface WalStatus {
  last_wal?: number;
  last_remote_wal?: number;
  merkle_root?: string;
}

const statusOf = async (client: ApiClient): Promise<WalStatus> =>
  (await client.get<{ data: WalStatus }>('sys/replication/dr/status')).body.data;

async function must(res: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
}

async function waitInSync(primary: ApiClient, secondary: ApiClient, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [p, s] = await Promise.all([statusOf(primary), statusOf(secondary)]);
    if (p.merkle_root === s.merkle_root && p.last_wal === s.last_remote_wal) return;
    if (Date.now() > deadline) throw new Error('the secondary did not catch up');
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  }
}

/**
 * DR replication to a second dev server on the same machine: catch-up rate of a fresh secondary
 * (events/s), lag (primary commit seen -> secondary applied) under a steady 500 KV writes/s, and
 * the write throughput the primary keeps meanwhile (compare with the kv suite's "KV v2 write").
 */
export const replicationSuite: BenchSuite = {
  name: 'replication',
  targets: [
    {
      scenario: 'DR replication lag at 500 writes/s',
      minRps: 0,
      maxP99: 1000,
      label: 'replication lag p99 < 1 s under a steady 500 writes/s',
    },
  ],
  async run(target, shape, log) {
    const primary = api(target.baseUrl, target.rootToken);
    const secondaryServer = await startDevServer(
      { COFFER_DEV_CLUSTER_ADDRESS: `127.0.0.1:${await freePort()}` },
      { bannerTimeoutMs: 180_000 },
    );
    const secondary = secondaryServer.client;
    try {
      await must(primary.post('sys/replication/dr/primary/enable', {}), 'primary enable');
      const issued = await primary.post<{ wrap_info: { token: string } }>(
        'sys/replication/dr/primary/secondary-token',
        { id: 'bench' },
      );
      const token = issued.body.wrap_info.token;
      // catch-up: everything the suites before wrote, from position 0
      const backlog = (await statusOf(primary)).last_wal ?? 0;
      const started = Date.now();
      await must(secondary.post('sys/replication/dr/secondary/enable', { token }), 'secondary enable');
      await waitInSync(primary, secondary);
      const catchUpSeconds = (Date.now() - started) / 1000;
      log(`  catch-up: ${backlog} events in ${catchUpSeconds.toFixed(1)} s`);
      const catchUp: Scenario = {
        name: 'DR catch-up of a fresh secondary (events/s)',
        summary: {
          count: backlog,
          errors: 0,
          durationSeconds: catchUpSeconds,
          rps: backlog / catchUpSeconds,
          p50: 0,
          p99: 0,
          non2xx: 0,
        },
      };

      // lag: each sample of the primary's WAL total is timed until the secondary has applied it
      const lag = new LatencyRecorder();
      const pending: Array<{ wal: number; at: number }> = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [p, s] = await Promise.all([statusOf(primary), statusOf(secondary)]);
          const now = Date.now();
          const wal = p.last_wal ?? 0;
          if (wal > (pending[pending.length - 1]?.wal ?? 0)) pending.push({ wal, at: now });
          while (pending.length > 0 && (pending[0]?.wal ?? 0) <= (s.last_remote_wal ?? 0))
            lag.record(now - (pending.shift()?.at ?? now));
          await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
        }
      })();
      const writes = await runScenario(target, shape, log, `KV v2 write at ${RATE}/s while replicating`, {
        method: 'POST',
        overallRate: RATE,
        body: JSON.stringify({ data: { value: randomBytes(24).toString('base64') } }),
        path: (n) => `/v1/secret/data/bench/repl-${n % 1000}`,
      });
      await waitInSync(primary, secondary);
      sampling = false;
      await sampler;
      const lagSummary = lag.summarize(shape.durationSeconds);
      log(`  lag: p50 ${lagSummary.p50} ms, p99 ${lagSummary.p99} ms`);
      return [
        catchUp,
        writes,
        {
          name: 'DR replication lag at 500 writes/s',
          summary: { ...lagSummary, rps: writes.summary.rps, non2xx: 0 },
        },
      ];
    } finally {
      await secondaryServer.stop();
      await primary.post('sys/replication/dr/primary/disable', {});
    }
  },
};
