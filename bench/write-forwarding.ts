import { Command, InvalidArgumentError } from 'commander';
import type { ForwardedWrite } from '@coffer/contracts/replication';
import { freePort } from '@coffer/testing';
import { initialModeState, type PrimaryLink } from '../libs/replication/src/state/replication-state.decider';
import type { WalSource } from '../libs/replication/src/wal/wal-source';
import { ClusterListener } from '../libs/replication/src/stream/cluster-listener';
import { StreamStatus } from '../libs/replication/src/stream/stream-status';
import { ForwardingPool } from '../libs/replication/src/stream/forwarding-pool';
import { LatencyRecorder } from '../tools/lib/stats';

/**
 * The cluster connection's own cost of a forwarded write (performance secondary -> primary):
 * a primary's cluster listener on a local port whose engine answers at once, and a secondary
 * forwarding through its pooled connection, one write at a time (latency) then `writers`
 * concurrent loops for `duration` seconds (throughput). Engine and gateway time are left out on
 * purpose: this is what the connection costs (a handshake per write before the pool).
 *
 *   node -r ./tools/register.js bench/write-forwarding.ts [--writers 32] [--duration 5]
 */
const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('a positive integer');
  return n;
};

const PSK = Buffer.alloc(32, 7).toString('base64');

const write: ForwardedWrite = {
  subject: 'kv.v2.data.write',
  service: 'kv',
  request: {
    operation: 'create',
    mount: {
      path: 'secret/',
      uuid: 'm-secret',
      accessor: 'kv_1',
      type: 'kv',
      namespace: '',
      options: { version: '2' },
      config: { default_lease_ttl: 0, max_lease_ttl: 0 },
    },
    path: 'data/bench',
    params: { path: 'bench' },
    body: { data: { value: 'x'.repeat(64) } },
    query: {},
    headers: {},
  },
  context: {},
};

async function main(): Promise<void> {
  const opts = new Command()
    .option('--writers <n>', 'concurrent writers', positiveInt, 32)
    .option('--duration <s>', 'seconds per phase', positiveInt, 5)
    .parse()
    .opts<{ writers: number; duration: number }>();
  const clusterAddr = `127.0.0.1:${await freePort()}`;
  const state = {
    ...initialModeState('performance'),
    state: 'primary' as const,
    clusterId: 'bench',
    secondaries: [{ id: 'perf', psk: PSK, expiresAtMs: Date.now() + 3_600_000 }],
    epoch: 1,
  };
  const listener = new ClusterListener({
    wal: {} as WalSource,
    status: new StreamStatus(),
    stateOf: (mode) => (mode === 'performance' ? state : undefined),
    filterFor: () => undefined,
    keyrings: async () => [],
    stepDown: async () => undefined,
    attachments: async () => [],
    forward: async () => ({ answer: { data: { version: 1 } }, index: { source: 'kv', wal: 1 } }),
  });
  await listener.start(clusterAddr);
  const link: PrimaryLink = {
    clusterId: 'bench',
    secondaryId: 'perf',
    primaryClusterAddr: clusterAddr,
    primaryApiAddr: 'http://127.0.0.1:1',
    psk: PSK,
  };
  const pool = new ForwardingPool(link, { apiAddr: 'http://127.0.0.1:2', clusterAddr: '127.0.0.1:3' });
  const forward = () => pool.forward(write, 1);
  try {
    for (let i = 0; i < 50; i++) await forward(); // warm-up
    const phase = async (writers: number): Promise<void> => {
      const recorder = new LatencyRecorder();
      const until = Date.now() + opts.duration * 1000;
      const started = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: writers }, async () => {
          while (Date.now() < until) {
            const t0 = process.hrtime.bigint();
            try {
              await forward();
              recorder.record(Number(process.hrtime.bigint() - t0) / 1e6);
            } catch {
              recorder.errors++;
            }
          }
        }),
      );
      const s = recorder.summarize(Number(process.hrtime.bigint() - started) / 1e9);
      console.log(
        `${writers} writer(s): ${s.rps.toFixed(0)} writes/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, errors ${s.errors}`,
      );
    };
    await phase(1);
    await phase(opts.writers);
    console.log(`TLS-PSK handshakes on the primary: ${listener.counts.connections}`);
  } finally {
    pool.close();
    await listener.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
