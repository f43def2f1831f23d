import { randomBytes } from 'node:crypto';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite } from '../lib/suite';

const HOT_KEY = 'secret/data/bench/hot';
const MIXED_READ_KEYS = 100;
const MIXED_WRITE_KEYS = 1000;

/**
 * KV v2 write shapes beyond the plain write of the kv suite: every connection rewriting one key
 * (appends to one stream, decided one after the other), and a 90 % read / 10 % write mix.
 */
export const kvWriteSuite: BenchSuite = {
  name: 'kvwrite',
  // the hot key's cluster figure is the one of two kv replicas, deciding writes of one key each
  clusterKvReplicas: 2,
  targets: [
    {
      scenario: 'KV v2 write',
      minRps: 2000,
      maxP99: 40,
      label: 'KV v2 writes ≥ 2,000/s with p99 < 40 ms (issue 14)',
    },
    {
      scenario: 'KV v2 update of one hot key (2 kv replicas)',
      minRps: 1000,
      label: 'KV v2 updates of one hot key (every connection, same path), two kv replicas ≥ 1,000/s',
    },
  ],
  async run(target, shape, log) {
    const value = () => JSON.stringify({ data: { value: randomBytes(24).toString('base64') } });
    await mustWrite(target, HOT_KEY, { data: { value: 'first' } });
    for (let i = 0; i < MIXED_READ_KEYS; i++) {
      await mustWrite(target, `secret/data/bench/m-${i}`, { data: { value: 'mixed' } });
    }
    const body = value();
    // every tenth request writes: the write keys spread like the kv suite's, reads hit warm keys
    const writes = (n: number) => n % 10 === 0;
    return [
      await runScenario(target, shape, log, 'KV v2 update of one hot key', {
        method: 'POST',
        body,
        path: () => `/v1/${HOT_KEY}`,
      }),
      await runScenario(target, shape, log, 'KV v2 mixed 90 % read / 10 % write', {
        method: (n) => (writes(n) ? 'POST' : 'GET'),
        body: (n) => (writes(n) ? body : undefined),
        path: (n) =>
          writes(n)
            ? `/v1/secret/data/bench/mw-${(n / 10) % MIXED_WRITE_KEYS}`
            : `/v1/secret/data/bench/m-${n % MIXED_READ_KEYS}`,
      }),
    ];
  },
};
