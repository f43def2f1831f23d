import { Counter, Gauge, Histogram } from 'prom-client';
import { prometheusText, vaultMetricsJson } from './metrics';

describe('metrics rendering', () => {
  const gauge = new Gauge({ name: 'spec_sealed', help: 'sealed' });
  const unset = new Gauge({ name: 'spec_not_a_number', help: 'a gauge whose source failed' });
  const counter = new Counter({
    name: 'spec_requests_total',
    help: 'requests',
    labelNames: ['route'] as const,
  });
  const histogram = new Histogram({
    name: 'spec_latency_seconds',
    help: 'latency',
    labelNames: ['route'] as const,
    buckets: [0.1, 1],
  });

  beforeAll(() => {
    gauge.set(1);
    unset.set(Number.NaN);
    counter.inc({ route: 'secret/data/:path*' }, 3);
    histogram.observe({ route: 'secret/data/:path*' }, 0.5);
    histogram.observe({ route: 'secret/data/:path*' }, 1.5);
  });

  it('renders the Prometheus text format, process metrics included', async () => {
    const text = await prometheusText();
    expect(text).toContain('# TYPE spec_requests_total counter');
    expect(text).toContain('spec_requests_total{route="secret/data/:path*"} 3');
    expect(text).toContain('spec_latency_seconds_bucket{le="1",route="secret/data/:path*"} 1');
    expect(text).toContain('coffer_process_resident_memory_bytes');
  });

  it("renders Vault's JSON shape: gauges, counters and samples", async () => {
    const json = await vaultMetricsJson(new Date('2026-01-02T03:04:05.678Z'));
    expect(json.Timestamp).toBe('2026-01-02 03:04:05 +0000 UTC');
    expect(json.Points).toEqual([]);
    expect(json.Gauges).toContainEqual({ Name: 'spec_sealed', Value: 1, Labels: {} });
    // JSON cannot carry NaN: the series is left out rather than failing the whole answer
    expect(json.Gauges.map((g) => g.Name)).not.toContain('spec_not_a_number');
    expect(json.Counters).toContainEqual(
      expect.objectContaining({
        Name: 'spec_requests_total',
        Count: 3,
        Sum: 3,
        Labels: { route: 'secret/data/:path*' },
      }),
    );
    expect(json.Samples).toContainEqual(
      expect.objectContaining({
        Name: 'spec_latency_seconds',
        Count: 2,
        Sum: 2,
        Mean: 1,
        Labels: { route: 'secret/data/:path*' },
      }),
    );
  });
});
