import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { EXPORT_FAILURE_LOG_INTERVAL_MS, ReportingExporter } from './export-reporting';

class FailingExporter implements SpanExporter {
  ok = false;
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done(
      this.ok
        ? { code: ExportResultCode.SUCCESS }
        : { code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED 127.0.0.1:9') },
    );
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('ReportingExporter', () => {
  it('logs failed exports at most once per interval, counting what was lost in between', () => {
    const warnings: string[] = [];
    let now = 1_000_000;
    const inner = new FailingExporter();
    const exporter = new ReportingExporter(
      inner,
      'http://collector/v1/traces',
      { warn: (m) => warnings.push(m) },
      () => now,
    );
    const spans = [{}, {}] as ReadableSpan[];
    const results: ExportResultCode[] = [];
    const send = () => exporter.export(spans, (r) => results.push(r.code));

    send();
    send();
    send();
    expect(warnings).toEqual([
      'trace export to http://collector/v1/traces failed: connect ECONNREFUSED 127.0.0.1:9; 2 spans dropped',
    ]);
    now += EXPORT_FAILURE_LOG_INTERVAL_MS;
    inner.ok = true;
    send();
    inner.ok = false;
    send();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('6 spans dropped (3 failed exports since the last report)');
    expect(results).toEqual([
      ExportResultCode.FAILED,
      ExportResultCode.FAILED,
      ExportResultCode.FAILED,
      ExportResultCode.SUCCESS,
      ExportResultCode.FAILED,
    ]);
  });
});
