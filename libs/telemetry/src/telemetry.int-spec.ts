import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DomainError, defineContract } from '@coffer/contracts';
import { InProcessTransport, connectNatsTransport, type NatsTransport } from '@coffer/transport';
import { z } from 'zod';
import { startTelemetry, withService, type Telemetry } from './index';
import { natsUrl } from '@coffer/testing';

const probe = defineContract(
  'kv.probe',
  z.object({ fail: z.boolean().default(false), crash: z.boolean().default(false) }),
  z.object({ ok: z.boolean() }),
);
const quiet = { error: () => undefined, warn: () => undefined };

/** Runs `fn` as the work of an incoming request (a SERVER root span, as the HTTP instrumentation's). */
async function asRequest<T>(fn: () => Promise<T>): Promise<T> {
  const span = trace.getTracer('spec').startSpan('GET /probe', { kind: SpanKind.SERVER });
  try {
    return await context.with(trace.setSpan(context.active(), span), fn);
  } finally {
    span.end();
  }
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('telemetry across the NATS transport', () => {
  const memory = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let server: NatsTransport;
  let client: NatsTransport;

  const spans = (name: string): ReadableSpan[] => memory.getFinishedSpans().filter((s) => s.name === name);

  beforeAll(async () => {
    telemetry = startTelemetry({ serviceName: 'telemetry-spec', exporter: memory });
    const subjectPrefix = `t${process.pid}${Date.now()}`;
    const servers = natsUrl();
    server = await connectNatsTransport({ servers, subjectPrefix, name: 'otel-server', logger: quiet });
    client = await connectNatsTransport({ servers, subjectPrefix, name: 'otel-client', logger: quiet });
    server.serve(probe, 'kv', async (req) => {
      trace.getTracer('spec').startSpan('inner work').end();
      if (req.fail) throw new DomainError('not_found', 'secret/data/a is missing');
      if (req.crash) throw new Error('secret/data/a broke');
      return { ok: true };
    });
    await server.flush();
  });
  beforeEach(() => memory.reset());
  afterAll(async () => {
    await Promise.all([server.close(), client.close()]);
    await telemetry.shutdown();
  });

  it('makes the server span a child of the client span, in the same trace', async () => {
    await withService('gateway', () => asRequest(() => client.request(probe, {})));
    await until(() => spans('send kv.probe').length === 1 && spans('process kv.probe').length === 1);
    const [send] = spans('send kv.probe');
    const [processing] = spans('process kv.probe');

    expect(send?.kind).toBe(SpanKind.CLIENT);
    expect(processing?.kind).toBe(SpanKind.SERVER);
    expect(processing?.spanContext().traceId).toBe(send?.spanContext().traceId);
    expect(processing?.parentSpanContext?.spanId).toBe(send?.spanContext().spanId);
    // Only the subject and service names: never payloads or header values.
    expect(send?.attributes).toEqual({
      'messaging.destination.name': 'kv.probe',
      'peer.service': 'kv',
      'coffer.service': 'gateway',
    });
    expect(processing?.attributes).toEqual({
      'messaging.destination.name': 'kv.probe',
      'coffer.service': 'kv',
    });
    expect(send?.resource.attributes['service.name']).toBe('telemetry-spec');
  });

  it("attributes spans started inside a handler to the handler's service", async () => {
    await asRequest(() => client.request(probe, {}));
    await until(() => spans('inner work').length === 1 && spans('process kv.probe').length === 1);
    const [inner] = spans('inner work');
    const [processing] = spans('process kv.probe');
    expect(inner?.attributes['coffer.service']).toBe('kv');
    expect(inner?.parentSpanContext?.spanId).toBe(processing?.spanContext().spanId);
  });

  it('keeps a 4xx answer unmarked on both ends, with its code only', async () => {
    await expect(asRequest(() => client.request(probe, { fail: true }))).rejects.toBeInstanceOf(DomainError);
    await until(() => spans('send kv.probe').length === 1 && spans('process kv.probe').length === 1);
    for (const span of [...spans('send kv.probe'), ...spans('process kv.probe')]) {
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
      expect(span.attributes['coffer.error_code']).toBe('not_found');
    }
  });

  it('marks a failure of the service (5xx) as an error on both ends, with the code only', async () => {
    await expect(asRequest(() => client.request(probe, { crash: true }))).rejects.toBeInstanceOf(DomainError);
    await until(() => spans('send kv.probe').length === 1 && spans('process kv.probe').length === 1);
    for (const span of [...spans('send kv.probe'), ...spans('process kv.probe')]) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'internal' });
      expect(JSON.stringify(span.attributes)).not.toContain('broke');
    }
  });

  it('records no trace for work outside a request (no root client spans)', async () => {
    await client.request(probe, {});
    await asRequest(() => client.request(probe, {}));
    await until(() => spans('process kv.probe').length === 1);
    expect(spans('send kv.probe')).toHaveLength(1);
  });

  it('shares one SDK between starts and exports through a given exporter once', async () => {
    const second = startTelemetry({ serviceName: 'another-service', exporter: memory });
    await asRequest(() => client.request(probe, {}));
    await until(() => spans('process kv.probe').length >= 1);
    await second.shutdown();
    expect(spans('send kv.probe')).toHaveLength(1);
    expect(spans('process kv.probe')).toHaveLength(1);
    expect(spans('send kv.probe')[0]?.resource.attributes['service.name']).toBe('telemetry-spec');

    // The first handle still holds the SDK: spans keep flowing.
    memory.reset();
    await asRequest(() => client.request(probe, {}));
    await until(() => spans('process kv.probe').length === 1);
  });
});

describe('telemetry lifecycle', () => {
  it('propagates trace context without any exporter, and stops once the last handle is released', async () => {
    const bus = new InProcessTransport({ logger: quiet });
    const echo = defineContract('svc.trace', z.object({}), z.object({ traceparent: z.string().nullable() }));
    bus.serve(echo, 'svc', async (_req, headers) => ({ traceparent: headers['traceparent'] ?? null }));

    const first = startTelemetry({ serviceName: 'lifecycle' });
    const second = startTelemetry({ serviceName: 'lifecycle' });
    const { traceparent } = await bus.request(echo, {});
    // not sampled (no request started this trace), but propagated
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);

    await first.shutdown();
    await first.shutdown();
    expect((await bus.request(echo, {})).traceparent).not.toBeNull();

    await second.shutdown();
    expect((await bus.request(echo, {})).traceparent).toBeNull();

    // A released process can start again (tests, restarts of a composed dev process).
    const again = startTelemetry({ serviceName: 'lifecycle' });
    expect((await bus.request(echo, {})).traceparent).not.toBeNull();
    await again.shutdown();
    await bus.close();
  });
});
