import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { natsUrl, pgUrl, REPO_ROOT } from '@coffer/testing';
import { startCluster, startDevServer } from '../test/support';
import { fastifyBaseline, natsBaseline, pgBaseline, type LoadShape } from './lib/baselines';
import { devStartupLines, keptSections, rssMiB, type DevStartup } from './lib/dev-startup';
import type { BenchSuite, CofferTarget, StandaloneBenchSuite } from './lib/suite';
import { BENCH_SUITES } from './suites';
import {
  benchmarksDocument,
  describeMachine,
  relevantBaseline,
  resultsTable,
  type Mode,
  type Row,
} from './lib/report';

/**
 * `npm run bench`: every engine's suite (`bench/suites`) through the gateway in dev and cluster
 * mode, plus the baselines of each step of the path, in one run. Prints a markdown table
 * and writes docs/benchmarks.md. `npm run bench -- --duration 2 --connections 16` for a smoke run.
 */
interface Options {
  duration: number;
  connections: number;
  modes: Mode[];
  kvReplicas: number;
  suites: string[];
  pgPool: number;
  write: boolean;
  out: string;
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const modeList = (value: string): Mode[] => {
  const modes = value.split(',').map((m) => m.trim());
  for (const m of modes)
    if (!['baseline', 'dev', 'cluster'].includes(m)) throw new InvalidArgumentError(`unknown mode "${m}"`);
  return modes as Mode[];
};

const suiteList = (value: string): string[] => {
  const names = value.split(',').map((s) => s.trim());
  for (const n of names)
    if (!BENCH_SUITES.some((s) => s.name === n)) throw new InvalidArgumentError(`unknown suite "${n}"`);
  return names;
};

const log = (line: string) => process.stderr.write(`${line}\n`);

interface CofferRun {
  rows: Row[];
  /** dev mode: time to the banner and idle memory */
  startup?: DevStartup;
}

async function startCoffer(
  mode: 'dev' | 'cluster',
  kvReplicas: number,
): Promise<{ target: CofferTarget; stop: () => Promise<unknown>; startup?: DevStartup }> {
  if (mode === 'cluster') {
    const c = await startCluster({ kvReplicas, label: 'bench', readyTimeoutMs: 240_000 });
    return { target: { baseUrl: c.baseUrl, rootToken: c.rootToken }, stop: c.stop };
  }
  const started = performance.now();
  const d = await startDevServer();
  const readyMs = performance.now() - started;
  // idle: a moment after the banner, once start-up garbage could be collected
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rss = d.process.pid === undefined ? undefined : await rssMiB(d.process.pid);
  return {
    target: { baseUrl: d.baseUrl, rootToken: d.rootToken },
    stop: d.stop,
    ...(rss === undefined ? {} : { startup: { readyMs, idleRssMiB: rss } }),
  };
}

const isStandalone = (s: BenchSuite | StandaloneBenchSuite): s is StandaloneBenchSuite =>
  'runStandalone' in s;

async function measureCoffer(mode: 'dev' | 'cluster', shape: LoadShape, opts: Options): Promise<CofferRun> {
  const chosen = BENCH_SUITES.filter((s) => opts.suites.includes(s.name));
  const suites = chosen.filter((s): s is BenchSuite => !isStandalone(s));
  // a suite needing more kv replicas than the run's gets a cluster of its own
  const ownCluster = (s: BenchSuite) => mode === 'cluster' && (s.clusterKvReplicas ?? 0) > opts.kvReplicas;
  const rows: Row[] = [];
  const groups = [
    { replicas: opts.kvReplicas, suites: suites.filter((s) => !ownCluster(s)) },
    ...suites.filter(ownCluster).map((s) => ({ replicas: s.clusterKvReplicas ?? 1, suites: [s] })),
  ];
  let startup: DevStartup | undefined;
  for (const group of groups.filter((g) => g.suites.length > 0)) {
    log(`${mode} mode: starting${mode === 'cluster' ? ` (${group.replicas} kv replicas)` : ''}`);
    const server = await startCoffer(mode, group.replicas);
    startup ??= server.startup;
    const suffix = group.replicas === opts.kvReplicas ? '' : ` (${group.replicas} kv replicas)`;
    try {
      for (const suite of group.suites) {
        log(` ${suite.name}`);
        const scenarios = await suite.run(server.target, shape, log);
        rows.push(...scenarios.map((s) => ({ mode, scenario: `${s.name}${suffix}`, summary: s.summary })));
      }
    } finally {
      await server.stop();
    }
  }
  for (const suite of chosen.filter(isStandalone).filter((s) => s.modes.includes(mode))) {
    log(`${mode} mode: ${suite.name}`);
    const scenarios = await suite.runStandalone(shape, log);
    rows.push(...scenarios.map((s) => ({ mode, scenario: s.name, summary: s.summary, rate: s.rate })));
  }
  return { rows, ...(startup ? { startup } : {}) };
}

async function main(): Promise<void> {
  const opts = new Command()
    .name('npm run bench --')
    .option('--duration <seconds>', 'seconds per scenario', positiveInt, 10)
    .option('--connections <n>', 'HTTP connections / requests in flight', positiveInt, 64)
    .option('--modes <list>', 'comma-separated: baseline,dev,cluster', modeList, [
      'baseline',
      'dev',
      'cluster',
    ] as Mode[])
    .option(
      '--suites <list>',
      `comma-separated suites: ${BENCH_SUITES.map((s) => s.name).join(',')}`,
      suiteList,
      BENCH_SUITES.map((s) => s.name),
    )
    .option('--kv-replicas <n>', 'kv replicas in cluster mode', positiveInt, 1)
    .option('--pg-pool <n>', 'pool size of the pg baseline (the services use 10)', positiveInt, 10)
    .option('--no-write', 'print the table only; leave docs/benchmarks.md alone')
    .option('--out <file>', 'where to write the report', path.join(REPO_ROOT, 'docs', 'benchmarks.md'))
    .parse(process.argv)
    .opts<Options>();
  const shape: LoadShape = { durationSeconds: opts.duration, connections: opts.connections };
  const rows: Row[] = [];

  if (opts.modes.includes('baseline')) {
    log('baselines');
    const add = (scenario: string, summary: Row['summary']) => {
      rows.push({ mode: 'baseline', scenario, summary });
      log(`  ${scenario}: ${Math.round(summary.rps)} req/s, p99 ${summary.p99.toFixed(1)} ms`);
    };
    add('Fastify', await fastifyBaseline(shape));
    add('NATS', await natsBaseline(shape, natsUrl()));
    add('pg', await pgBaseline(shape, pgUrl(), opts.pgPool));
  }
  let startup: DevStartup | undefined;
  for (const mode of ['dev', 'cluster'] as const) {
    if (!opts.modes.includes(mode)) continue;
    const run = await measureCoffer(mode, shape, opts);
    rows.push(...run.rows);
    startup ??= run.startup;
  }

  const baselines = new Map(
    rows.filter((r) => r.mode === 'baseline').map((r) => [r.scenario, r.summary.rps]),
  );
  for (const row of rows)
    if (row.mode !== 'baseline' && row.rate === undefined)
      row.baseline = relevantBaseline(row.mode, baselines);

  process.stdout.write(`\n${resultsTable(rows)}\n`);
  const startupLines = startup ? devStartupLines(startup) : [];
  if (startupLines.length > 0) process.stdout.write(`\n${startupLines.join('\n')}`);
  if (opts.write) {
    const doc = benchmarksDocument(
      rows,
      describeMachine(),
      { ...shape, kvReplicas: opts.kvReplicas },
      BENCH_SUITES.flatMap((s) => s.targets),
      new Date(),
    );
    const previous = await readFile(opts.out, 'utf8').catch(() => '');
    const kept = keptSections(previous);
    await mkdir(path.dirname(opts.out), { recursive: true });
    await writeFile(opts.out, [doc, ...startupLines, ...kept.map((k) => `${k}\n`)].join('\n'));
    log(`\nwrote ${path.relative(process.cwd(), opts.out)}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
