import { collectDefaultMetrics, register } from 'prom-client';

/** prom-client's JSON form of one metric (its type is not exported by name). */
type MetricJson = Awaited<ReturnType<typeof register.getMetricsAsJSON>>[number];

/**
 * Every process keeps its metrics in prom-client's default registry: each library defines its
 * own (`*.metrics.ts`, e.g. the gateway's request histograms, the transport's latencies, the
 * event store's commit sizes) and the ops listener's /metrics and the API's sys/metrics render
 * that one registry. Process metrics (CPU, memory, event-loop lag, GC) are added at the first
 * scrape, so a library imported by a test costs nothing.
 */
let processMetrics = false;

function ensureProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ prefix: 'coffer_' });
}

export const PROMETHEUS_CONTENT_TYPE = register.contentType;

/** The Prometheus text exposition of this process's metrics. */
export async function prometheusText(): Promise<string> {
  ensureProcessMetrics();
  return register.metrics();
}

/** One entry of Vault's JSON metrics (go-metrics' DisplayMetrics). */
export interface VaultGauge {
  Name: string;
  Value: number;
  Labels: Record<string, string>;
}
export interface VaultSample {
  Name: string;
  Count: number;
  Rate: number;
  Sum: number;
  Min: number;
  Max: number;
  Mean: number;
  Stddev: number;
  Labels: Record<string, string>;
}
export interface VaultMetrics {
  Timestamp: string;
  Gauges: VaultGauge[];
  Points: never[];
  Counters: VaultSample[];
  Samples: VaultSample[];
}

/** go-metrics' interval (10 s): Rate is the sum over it, as Vault reports it. */
const INTERVAL_SECONDS = 10;

/** Go's time.Time String() in UTC, as Vault's Timestamp: "2024-01-02 03:04:05 +0000 UTC". */
function goTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

const stringLabels = (labels: Partial<Record<string, string | number>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(labels)
      .filter(([key, value]) => key !== 'le' && value !== undefined)
      .map(([key, value]) => [key, String(value)]),
  );

const labelKey = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels).sort());

function sample(name: string, count: number, sum: number, labels: Record<string, string>): VaultSample {
  const mean = count === 0 ? 0 : sum / count;
  return {
    Name: name,
    Count: count,
    Rate: sum / INTERVAL_SECONDS,
    Sum: sum,
    Min: mean,
    Max: mean,
    Mean: mean,
    Stddev: 0,
    Labels: labels,
  };
}

/** A histogram's series, one per label set: count and sum (its buckets have no place in Vault's shape). */
function histogramSamples(metric: MetricJson): VaultSample[] {
  const series = new Map<string, { labels: Record<string, string>; count: number; sum: number }>();
  for (const value of metric.values) {
    const name = (value as { metricName?: string }).metricName ?? metric.name;
    const isSum = name.endsWith('_sum');
    if (!isSum && !name.endsWith('_count')) continue;
    const labels = stringLabels(value.labels);
    const key = labelKey(labels);
    const entry = series.get(key) ?? { labels, count: 0, sum: 0 };
    if (isSum) entry.sum = value.value;
    else entry.count = value.value;
    series.set(key, entry);
  }
  return [...series.values()].map((s) => sample(metric.name, s.count, s.sum, s.labels));
}

/**
 * Vault's JSON rendering of sys/metrics (go-metrics' InmemSink): gauges with their value,
 * counters and histograms as samples (count, sum, mean). Names stay Prometheus names.
 */
export async function vaultMetricsJson(now = new Date()): Promise<VaultMetrics> {
  ensureProcessMetrics();
  const out: VaultMetrics = { Timestamp: goTime(now), Gauges: [], Points: [], Counters: [], Samples: [] };
  for (const metric of await register.getMetricsAsJSON()) {
    const withValues = metric;
    // prom-client types MetricType as a (non-exported) enum of these strings
    switch (String(metric.type)) {
      case 'gauge':
        for (const v of withValues.values) {
          out.Gauges.push({ Name: metric.name, Value: v.value, Labels: stringLabels(v.labels) });
        }
        break;
      case 'counter':
        for (const v of withValues.values)
          out.Counters.push(sample(metric.name, v.value, v.value, stringLabels(v.labels)));
        break;
      case 'histogram':
      case 'summary':
        out.Samples.push(...histogramSamples(withValues));
        break;
    }
  }
  // JSON has no NaN or Infinity (a gauge nobody set yet, a collector that failed): such series
  // are left out, as go-metrics never reports them.
  out.Gauges = out.Gauges.filter((g) => Number.isFinite(g.Value));
  out.Counters = out.Counters.filter(finiteSample);
  out.Samples = out.Samples.filter(finiteSample);
  return out;
}

const finiteSample = (s: VaultSample): boolean =>
  [s.Count, s.Rate, s.Sum, s.Min, s.Max, s.Mean, s.Stddev].every((n) => Number.isFinite(n));
