import { randomBytes } from 'node:crypto';
import { mustWrite } from '../lib/coffer';
import { runScenario, type BenchSuite, type CofferTarget } from '../lib/suite';

const READ_KEYS = 100;
const WRITE_KEYS = 1000;

/** The data the read scenarios hit: kv v2 keys under secret/bench/ and the root token's cubbyhole. */
export async function prepareKv(target: CofferTarget): Promise<void> {
  for (let i = 0; i < READ_KEYS; i++) {
    await mustWrite(target, `secret/data/bench/r-${i}`, {
      data: { value: randomBytes(24).toString('base64') },
    });
  }
  await mustWrite(target, 'cubbyhole/bench', { value: randomBytes(24).toString('base64') });
}

/** KV v2 writes, KV v2 reads and cubbyhole reads through the gateway. */
export const kvSuite: BenchSuite = {
  name: 'kv',
  targets: [
    { scenario: 'KV v2 read', minRps: 4000, maxP99: 20, label: 'KV v2 reads ≥ 4,000/s with p99 < 20 ms' },
    { scenario: 'KV v2 write', minRps: 1500, maxP99: 20, label: 'KV v2 writes ≥ 1,500/s with p99 < 20 ms' },
  ],
  async run(target, shape, log) {
    await prepareKv(target);
    return [
      await runScenario(target, shape, log, 'KV v2 write', {
        method: 'POST',
        body: JSON.stringify({ data: { value: randomBytes(24).toString('base64') } }),
        path: (n) => `/v1/secret/data/bench/w-${n % WRITE_KEYS}`,
      }),
      await runScenario(target, shape, log, 'KV v2 read', {
        path: (n) => `/v1/secret/data/bench/r-${n % READ_KEYS}`,
      }),
      await runScenario(target, shape, log, 'cubbyhole read', { path: () => '/v1/cubbyhole/bench' }),
    ];
  },
};
