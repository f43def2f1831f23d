import { Logger } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, withRequestId, type Telemetry } from './index';

/** Every line Nest's console logger writes meanwhile (stdout and stderr). */
function captureLines(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }),
  );
  return { lines, restore: () => spies.forEach((s) => s.mockRestore()) };
}

describe('log lines carry the trace id of the active span', () => {
  const memory = new InMemorySpanExporter();
  let telemetry: Telemetry;
  const logger = new Logger('CorrelationSpec');

  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'log-correlation-spec', exporter: memory });
  });
  afterAll(async () => {
    await telemetry.shutdown();
  });

  it('tags every level inside a span, and only there', async () => {
    const out = captureLines();
    let traceId = '';
    try {
      logger.log('before any span');
      await trace.getTracer('spec').startActiveSpan('job sweep', async (span) => {
        traceId = span.spanContext().traceId;
        logger.log('swept 3 tokens');
        logger.warn('slow sweep');
        logger.error('sweep failed', 'Error: stack');
        await Promise.resolve();
        logger.log('after an await');
        span.end();
      });
      logger.log('after the span');
    } finally {
      out.restore();
    }
    const text = (needle: string) => out.lines.find((l) => l.includes(needle)) ?? '';
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const needle of ['swept 3 tokens', 'slow sweep', 'sweep failed', 'after an await'])
      expect(text(needle)).toContain(`${needle} trace_id=${traceId}`);
    expect(text('before any span')).not.toContain('trace_id=');
    expect(text('after the span')).not.toContain('trace_id=');
  });

  it("adds Vault's request_id where the gateway set it", async () => {
    const out = captureLines();
    let traceId = '';
    try {
      await trace.getTracer('spec').startActiveSpan('POST secret/data/:path*', async (span) => {
        traceId = span.spanContext().traceId;
        await withRequestId('0b7c-request', async () => {
          await Promise.resolve();
          logger.error('engine answered 500');
        });
        span.end();
      });
    } finally {
      out.restore();
    }
    expect(out.lines.join('')).toContain(`engine answered 500 trace_id=${traceId} request_id=0b7c-request`);
  });
});
