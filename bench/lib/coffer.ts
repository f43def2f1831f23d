import { randomBytes } from 'node:crypto';
import { httpJson } from '../../test/support/launch/bootstrap';
import type { Summary } from '../../tools/lib/stats';
import { runHttpLoad, type HttpSummary } from './http-load';
import type { LoadShape } from './baselines';

const READ_KEYS = 100;
const WRITE_KEYS = 1000;

export interface CofferTarget {
  baseUrl: string;
  rootToken: string;
}

export interface Scenario {
  name: string;
  summary: HttpSummary;
}

async function mustWrite(target: CofferTarget, path: string, body: unknown): Promise<void> {
  const res = await httpJson('PUT', `${target.baseUrl}/v1/${path}`, { token: target.rootToken, body });
  if (res.status >= 300)
    throw new Error(`bench set-up: PUT ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
}

/** The data the read scenarios hit: kv v2 keys under secret/bench/ and the root token's cubbyhole. */
export async function prepare(target: CofferTarget): Promise<void> {
  for (let i = 0; i < READ_KEYS; i++) {
    await mustWrite(target, `secret/data/bench/r-${i}`, {
      data: { value: randomBytes(24).toString('base64') },
    });
  }
  await mustWrite(target, 'cubbyhole/bench', { value: randomBytes(24).toString('base64') });
}

/** KV v2 writes, KV v2 reads and cubbyhole reads through the gateway, one after the other. */
export async function runScenarios(
  target: CofferTarget,
  shape: LoadShape,
  log: (line: string) => void,
): Promise<Scenario[]> {
  const common = {
    origin: target.baseUrl,
    connections: shape.connections,
    durationSeconds: shape.durationSeconds,
    headers: { 'x-vault-token': target.rootToken },
  };
  const out: Scenario[] = [];
  const run = async (
    name: string,
    opts: Partial<Parameters<typeof runHttpLoad>[0]> & { path: (n: number) => string },
  ) => {
    log(`  ${name}...`);
    const summary = await runHttpLoad({ ...common, title: name, ...opts });
    if (summary.count === 0)
      throw new Error(`${name}: no request succeeded (${summary.non2xx} non-2xx, ${summary.errors} errors)`);
    out.push({ name, summary });
    log(`  ${name}: ${Math.round(summary.rps)} req/s, p99 ${summary.p99} ms`);
  };
  await run('KV v2 write', {
    method: 'POST',
    body: JSON.stringify({ data: { value: randomBytes(24).toString('base64') } }),
    path: (n) => `/v1/secret/data/bench/w-${n % WRITE_KEYS}`,
  });
  await run('KV v2 read', { path: (n) => `/v1/secret/data/bench/r-${n % READ_KEYS}` });
  await run('cubbyhole read', { path: () => '/v1/cubbyhole/bench' });
  return out;
}

export type { Summary };
