import { SpanKind, context, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { inBatchSpan } from './batch-span';

describe('inBatchSpan', () => {
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

  const request = (name: string): { ctx: Context; end: () => void } => {
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER });
    return { ctx: trace.setSpan(context.active(), span), end: () => span.end() };
  };
  const finished = (name: string): ReadableSpan | undefined =>
    memory.getFinishedSpans().find((s) => s.name === name);

  it('makes the work of a single request a child in its trace', async () => {
    const one = request('one');
    await inBatchSpan('commit', [one.ctx], { 'db.namespace': 'kv' }, async () => {
      tracer.startSpan('statement').end();
    });
    one.end();
    const commit = finished('commit');
    expect(commit?.parentSpanContext?.spanId).toBe(trace.getSpanContext(one.ctx)?.spanId);
    expect(commit?.links).toEqual([]);
    expect(commit?.attributes).toEqual({ 'db.namespace': 'kv', 'coffer.batch.size': 1 });
    expect(finished('statement')?.parentSpanContext?.spanId).toBe(commit?.spanContext().spanId);
  });

  it('gives shared work a trace of its own, linked to every request', async () => {
    const a = request('a');
    const b = request('b');
    const result = await inBatchSpan('commit', [a.ctx, b.ctx, a.ctx], {}, async () => {
      tracer.startSpan('statement').end();
      return 42;
    });
    expect(result).toBe(42);
    const commit = finished('commit');
    expect(commit?.parentSpanContext).toBeUndefined();
    const linked = commit?.links.map((l) => l.context.spanId);
    expect(linked).toEqual([trace.getSpanContext(a.ctx)?.spanId, trace.getSpanContext(b.ctx)?.spanId]);
    expect(commit?.spanContext().traceId).not.toBe(trace.getSpanContext(a.ctx)?.traceId);
    expect(commit?.attributes['coffer.batch.size']).toBe(3);
    expect(finished('statement')?.spanContext().traceId).toBe(commit?.spanContext().traceId);
  });

  it('marks a failed batch and passes its error on', async () => {
    const one = request('one');
    await expect(
      inBatchSpan('commit', [one.ctx], {}, () => Promise.reject(new Error('deadlock detected'))),
    ).rejects.toThrow('deadlock detected');
    expect(finished('commit')?.status.code).toBe(2);
    expect(finished('commit')?.status.message).toBeUndefined();
  });
});
