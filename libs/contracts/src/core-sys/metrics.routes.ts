import { z } from 'zod';
import { engineContract, type RouteDef } from '../routes';

/**
 * sys/metrics (Vault's): the serving process's metrics, as JSON (go-metrics' shape) or, with
 * `?format=prometheus`, the Prometheus text format. Authenticated, like Vault without
 * `unauthenticated_metrics_access`.
 */
export const sysMetricsQuery = z
  .object({
    format: z.string().optional().describe('"prometheus" for the Prometheus text format; JSON otherwise.'),
  })
  .prefault({});

const labels = z.record(z.string(), z.string());
const gauge = z.object({ Name: z.string(), Value: z.number(), Labels: labels });
const sample = z.object({
  Name: z.string(),
  Count: z.number(),
  Rate: z.number(),
  Sum: z.number(),
  Min: z.number(),
  Max: z.number(),
  Mean: z.number(),
  Stddev: z.number(),
  Labels: labels,
});

export const sysMetricsRaw = z.union([
  z.string(),
  z.object({
    Timestamp: z.string(),
    Gauges: z.array(gauge),
    Points: z.array(z.never()),
    Counters: z.array(sample),
    Samples: z.array(sample),
  }),
]);

export const metricsContracts = {
  metrics: engineContract('core.sys.metrics.read', { query: sysMetricsQuery, raw: sysMetricsRaw }),
} as const;

export const metricsRouteDefs: RouteDef[] = [
  {
    pattern: 'metrics',
    synopsis: 'Export the metrics aggregated for telemetry purposes.',
    description:
      'Request counts and latencies by route, transport and event-store latencies, lease counts, seal status and plugin restarts of the answering process; format=prometheus for the Prometheus text format.',
    operations: { read: { contract: metricsContracts.metrics, summary: 'Reads the metrics.' } },
  },
];
