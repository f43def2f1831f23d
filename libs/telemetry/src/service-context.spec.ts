import { ROOT_CONTEXT } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SERVICE_CONTEXT_KEY } from '@coffer/transport';
import { FanOutSpanProcessor, serviceIn } from './service-context';

describe('FanOutSpanProcessor', () => {
  const setup = () => {
    const fanOut = new FanOutSpanProcessor();
    const tracer = new BasicTracerProvider({ spanProcessors: [fanOut] }).getTracer('spec');
    return { fanOut, tracer };
  };

  it('stamps the service found in the parent context, without overriding an explicit one', () => {
    const { fanOut, tracer } = setup();
    const memory = new InMemorySpanExporter();
    fanOut.add(new SimpleSpanProcessor(memory));
    const ctx = ROOT_CONTEXT.setValue(SERVICE_CONTEXT_KEY, 'kv');
    tracer.startSpan('a', {}, ctx).end();
    tracer.startSpan('b', { attributes: { 'coffer.service': 'core-sys' } }, ctx).end();
    tracer.startSpan('c', {}, ROOT_CONTEXT).end();
    const byName = Object.fromEntries(
      memory.getFinishedSpans().map((s) => [s.name, s.attributes['coffer.service']]),
    );
    expect(byName).toEqual({ a: 'kv', b: 'core-sys', c: undefined });
  });

  it('forwards to processors added and stops forwarding to removed ones', async () => {
    const { fanOut, tracer } = setup();
    const first = new InMemorySpanExporter();
    const second = new InMemorySpanExporter();
    const firstProcessor = new SimpleSpanProcessor(first);
    fanOut.add(firstProcessor);
    fanOut.add(new SimpleSpanProcessor(second));
    tracer.startSpan('both').end();
    fanOut.remove(firstProcessor);
    tracer.startSpan('second only').end();
    await fanOut.forceFlush();
    expect(first.getFinishedSpans().map((s) => s.name)).toEqual(['both']);
    expect(second.getFinishedSpans().map((s) => s.name)).toEqual(['both', 'second only']);
    // Shutdown reaches the exporters (an in-memory exporter forgets its spans when shut down).
    await fanOut.shutdown();
    expect(second.getFinishedSpans()).toEqual([]);
  });

  it('reads only string service names from a context', () => {
    expect(serviceIn(ROOT_CONTEXT.setValue(SERVICE_CONTEXT_KEY, 'kv'))).toBe('kv');
    expect(serviceIn(ROOT_CONTEXT.setValue(SERVICE_CONTEXT_KEY, 3))).toBeUndefined();
    expect(serviceIn(ROOT_CONTEXT)).toBeUndefined();
  });
});
