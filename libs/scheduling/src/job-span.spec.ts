import { SpanKind, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { IntervalLoop } from './interval-loop';
import { runJob } from './job-span';

describe('job spans', () => {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('spec');

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(() => memory.reset());

  it('runs each pass under one root span of its own, its work below it', async () => {
    const request = tracer.startSpan('request', { kind: SpanKind.SERVER });
    // started from inside a request, a pass still starts its own trace
    await context.with(trace.setSpan(context.active(), request), () =>
      runJob('token sweep', async () => {
        tracer.startSpan('select').end();
        tracer.startSpan('delete').end();
      }),
    );
    request.end();
    const job = memory.getFinishedSpans().find((s) => s.name === 'job token sweep');
    expect(job?.parentSpanContext).toBeUndefined();
    expect(job?.attributes).toEqual({ 'coffer.job': 'token sweep' });
    for (const name of ['select', 'delete']) {
      const span = memory.getFinishedSpans().find((s) => s.name === name);
      expect(span?.parentSpanContext?.spanId).toBe(job?.spanContext().spanId);
    }
  });

  it('names the span of an IntervalLoop pass and marks a failed one', async () => {
    const loop = new IntervalLoop({
      name: 'lease expiry',
      intervalMs: 0,
      run: () => Promise.reject(new Error('lease 42 failed')),
      onError: () => undefined,
    });
    await loop.tick();
    const job = memory.getFinishedSpans().find((s) => s.name === 'job lease expiry');
    expect(job?.status).toEqual({ code: 2 });
  });
});
