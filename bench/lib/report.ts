import os from 'node:os';
import { formatNumber, markdownTable } from '../../tools/lib/markdown';
import type { Summary } from '../../tools/lib/stats';
import type { BenchTarget } from './suite';

export type Mode = 'baseline' | 'dev' | 'cluster';

export interface Row {
  mode: Mode;
  scenario: string;
  summary: Summary & { non2xx?: number };
  /** shown instead of req/s, for a row that is not a rate */
  rate?: string;
  /** the baseline this row is compared with (Coffer rows only) */
  baseline?: { name: string; rps: number };
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
}

export function describeMachine(): Machine {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/**
 * The baseline a Coffer scenario is held against: in dev mode only the HTTP step exists outside
 * the process (Fastify); in cluster mode a request crosses HTTP, NATS and Postgres, so the
 * slowest of those three bounds it.
 */
export function relevantBaseline(
  mode: Mode,
  baselines: Map<string, number>,
): { name: string; rps: number } | undefined {
  const names = mode === 'dev' ? ['Fastify'] : ['Fastify', 'NATS', 'pg'];
  const candidates = names
    .map((name) => ({ name, rps: baselines.get(name) }))
    .filter((c): c is { name: string; rps: number } => c.rps !== undefined && c.rps > 0);
  return candidates.sort((a, b) => a.rps - b.rps)[0];
}

/** Two decimals, three below 0.1 so that small ratios do not all read 0.00. */
function ratio(value: number): string {
  return `${formatNumber(value, value < 0.1 ? 3 : 2)}×`;
}

export function resultsTable(rows: Row[]): string {
  return markdownTable(
    ['mode', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'baseline', 'ratio'],
    rows.map((r) => [
      r.mode,
      r.scenario,
      r.rate ?? formatNumber(r.summary.rps, 0),
      formatNumber(r.summary.p50, 1),
      formatNumber(r.summary.p99, 1),
      String(r.summary.errors + (r.summary.non2xx ?? 0)),
      r.baseline ? r.baseline.name : '—',
      r.baseline ? ratio(r.summary.rps / r.baseline.rps) : '—',
    ]),
  );
}

export interface RunShape {
  durationSeconds: number;
  connections: number;
  kvReplicas: number;
}

export function benchmarksDocument(
  rows: Row[],
  machine: Machine,
  shape: RunShape,
  targets: readonly BenchTarget[],
  date: Date,
): string {
  const find = (scenario: string) =>
    rows.find((r) => r.mode === 'cluster' && r.scenario === scenario)?.summary;
  const verdict = (t: BenchTarget) => {
    const s: Summary | undefined = find(t.scenario);
    if (s === undefined) return 'not measured';
    const met = s.rps >= t.minRps && (t.maxP99 === undefined || s.p99 < t.maxP99);
    return `${formatNumber(s.rps, 0)}/s, p99 ${formatNumber(s.p99, 1)} ms (${met ? 'met' : 'not met'})`;
  };
  return [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (bench/run.ts): autocannon drives the gateway over HTTP with',
    `${shape.connections} connections for ${shape.durationSeconds} s per scenario, in dev mode (one process: PGlite,`,
    `in-process transport) and in cluster mode (separate processes: gateway, core-sys, ${shape.kvReplicas} kv`,
    'replica(s), NATS, Postgres). The baselines measure each step of the path alone: a bare Fastify route',
    'returning a constant, a bare NATS request-reply echo to another process and a bare Postgres',
    `primary-key select through a pool, each with ${shape.connections} requests in flight. "ratio" is the`,
    "scenario's throughput over its baseline's (dev: Fastify; cluster: the slowest of Fastify, NATS, pg).",
    'Load generator and servers share the machine.',
    '',
    'Where the time goes: `node -r ./tools/register.js bench/profile.ts` starts a cluster with every app',
    'under the V8 CPU profiler, drives KV v2 writes and reads, and prints the top self-time entries and',
    'the CPU per request of each process during the load (profiles kept in /tmp/coffer-profiles).',
    '',
    `## Run of ${date.toISOString()}`,
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores`,
    `- Memory: ${machine.memoryGiB} GiB`,
    `- Node.js ${machine.node} on ${machine.os}`,
    '',
    resultsTable(rows),
    '',
    '## Targets (cluster mode, 2-core machine)',
    '',
    ...targets.map((t) => `- ${t.label}: ${verdict(t)}`),
    '',
  ].join('\n');
}
