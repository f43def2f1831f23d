import { LatencyRecorder, percentile } from './stats';
import { formatNumber, markdownTable } from './markdown';

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
  });

  it('answers 0 for an empty sample and the only value for a single one', () => {
    expect(percentile([], 99)).toBe(0);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
  });
});

describe('LatencyRecorder', () => {
  it('summarises samples beyond its initial capacity', () => {
    const recorder = new LatencyRecorder();
    for (let i = 0; i < 100_000; i++) recorder.record(i % 100);
    recorder.errors = 3;
    const summary = recorder.summarize(10);
    expect(summary).toEqual({
      count: 100_000,
      errors: 3,
      durationSeconds: 10,
      rps: 10_000,
      p50: 49,
      p99: 98,
    });
  });

  it('reports zero throughput for a zero duration', () => {
    expect(new LatencyRecorder().summarize(0).rps).toBe(0);
  });
});

describe('markdownTable', () => {
  it('pads columns and right-aligns numbers', () => {
    const table = markdownTable(
      ['scenario', 'req/s'],
      [
        ['fastify', '12,000'],
        ['kv read', '900'],
      ],
    );
    expect(table.split('\n')).toEqual([
      '| scenario |  req/s |',
      '| -------- | -----: |',
      '| fastify  | 12,000 |',
      '| kv read  |    900 |',
    ]);
  });

  it('formats numbers with separators and small values with a decimal', () => {
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(3.14159)).toBe('3.1');
    expect(formatNumber(2.5, 2)).toBe('2.50');
  });
});
