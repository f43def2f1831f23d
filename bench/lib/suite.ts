import type { LoadShape } from './baselines';
import { runHttpLoad, type HttpLoadOptions, type HttpSummary } from './http-load';

export interface CofferTarget {
  baseUrl: string;
  rootToken: string;
}

export interface Scenario {
  name: string;
  summary: HttpSummary;
  /** shown instead of req/s, for a row that is not a rate (e.g. "—") */
  rate?: string;
}

/** A goal a scenario is held to in cluster mode (printed under "Targets" in docs/benchmarks.md). */
export interface BenchTarget {
  scenario: string;
  minRps: number;
  /** p99 bound in ms, when the goal has one */
  maxP99?: number;
  /** how people state the goal, e.g. "KV v2 reads ≥ 4,000/s with p99 < 20 ms" */
  label: string;
}

/**
 * One engine's benchmark scenarios. Each suite sets up its own data on the target (mounts,
 * roles, keys) and then runs its scenarios one after the other; `bench/suites/index.ts` lists
 * them. Adding an engine's figures = one suite file + one list line.
 */
export interface BenchSuite {
  name: string;
  targets: readonly BenchTarget[];
  /**
   * kv replicas this suite needs in cluster mode: when more than the run's, the suite gets a
   * cluster of its own and its rows say so, e.g. "(2 kv replicas)"
   */
  clusterKvReplicas?: number;
  run(target: CofferTarget, shape: LoadShape, log: (line: string) => void): Promise<Scenario[]>;
}

export type ScenarioLoad = Partial<Omit<HttpLoadOptions, 'title' | 'origin'>> & {
  path: (n: number) => string;
};

/** Runs one HTTP scenario with the root token against the target; fails when nothing succeeded. */
export async function runScenario(
  target: CofferTarget,
  shape: LoadShape,
  log: (line: string) => void,
  name: string,
  load: ScenarioLoad,
): Promise<Scenario> {
  log(`  ${name}...`);
  const summary = await runHttpLoad({
    origin: target.baseUrl,
    connections: shape.connections,
    durationSeconds: shape.durationSeconds,
    title: name,
    ...load,
    headers: { 'x-vault-token': target.rootToken, ...load.headers },
  });
  if (summary.count === 0)
    throw new Error(`${name}: no request succeeded (${summary.non2xx} non-2xx, ${summary.errors} errors)`);
  log(`  ${name}: ${Math.round(summary.rps)} req/s, p99 ${summary.p99} ms`);
  return { name, summary };
}

/**
 * A suite that starts the servers it measures itself (e.g. start-up time): it is given no
 * target, and runs in the listed modes only.
 */
export interface StandaloneBenchSuite {
  name: string;
  targets: readonly BenchTarget[];
  modes: readonly ('dev' | 'cluster')[];
  runStandalone(shape: LoadShape, log: (line: string) => void): Promise<Scenario[]>;
}
