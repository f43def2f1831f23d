import { createRequire } from 'node:module';
import { context, propagation, trace, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { otlpTracesUrl } from './otlp';
import { FanOutSpanProcessor } from './service-context';

export interface TelemetryOptions {
  /** resource service.name of the process (the first caller's name wins; see startTelemetry) */
  serviceName: string;
  /** OTLP/HTTP collector, e.g. "http://collector:4318" (batched export) */
  otlpEndpoint?: string;
  /** any other exporter, e.g. InMemorySpanExporter in tests (exported as each span ends) */
  exporter?: SpanExporter;
}

export interface Telemetry {
  /** Releases this handle; the last release flushes exporters and unregisters everything. */
  shutdown(): Promise<void>;
}

interface Instrumentation {
  setTracerProvider(provider: TracerProvider): void;
  disable(): void;
}

interface Exporting {
  processor: SpanProcessor;
  refs: number;
}

interface Sdk {
  provider: BasicTracerProvider;
  fanOut: FanOutSpanProcessor;
  instrumentations: Instrumentation[];
  /** keyed by OTLP URL or by exporter instance, so N services naming one collector export once */
  exporting: Map<unknown, Exporting>;
  handles: number;
}

let sdk: Sdk | undefined;

/**
 * Instrumentations hook `require`, so modules an app imported before starting telemetry (every
 * import of a compiled main runs first) would stay unpatched. Requiring them again goes through
 * the hook, which patches the cached module objects in place (prototypes and module functions),
 * so earlier importers are covered too.
 */
const INSTRUMENTED_MODULES = [
  'http',
  'https',
  'pg',
  'pg-pool',
  '@nestjs/core/nest-factory.js',
  '@nestjs/core/router/router-execution-context.js',
];

function patchLoadedModules(): void {
  const load = createRequire(__filename);
  for (const name of INSTRUMENTED_MODULES) {
    try {
      load(name);
    } catch {
      // Not installed in this app: nothing to instrument.
    }
  }
}

function boot(serviceName: string): Sdk {
  const fanOut = new FanOutSpanProcessor();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [fanOut],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return { provider, fanOut, instrumentations: [], exporting: new Map(), handles: 0 };
}

/**
 * The http, pg and nestjs instrumentations are enabled only once something will export their
 * spans: with no exporter they cost about a fifth of the gateway's CPU for nothing. The
 * transport's own spans still give every request a trace context that crosses services, and the
 * first service that brings an exporter switches the instrumentations on.
 */
function ensureInstrumented(state: Sdk): void {
  if (state.instrumentations.length > 0) return;
  // Instrumentations enable themselves on construction; pg and http never record parameters or headers.
  state.instrumentations = [new HttpInstrumentation(), new PgInstrumentation(), new NestInstrumentation()];
  for (const instrumentation of state.instrumentations) instrumentation.setTracerProvider(state.provider);
  patchLoadedModules();
}

async function teardown(state: Sdk): Promise<void> {
  for (const instrumentation of state.instrumentations) instrumentation.disable();
  await state.provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable(); // disables the AsyncLocalStorage manager too
}

function acquire(state: Sdk, key: unknown, create: () => SpanProcessor): unknown {
  const existing = state.exporting.get(key);
  if (existing !== undefined) {
    existing.refs++;
  } else {
    const processor = create();
    state.exporting.set(key, { processor, refs: 1 });
    state.fanOut.add(processor);
  }
  return key;
}

async function release(state: Sdk, key: unknown): Promise<void> {
  const entry = state.exporting.get(key);
  if (entry === undefined || --entry.refs > 0) return;
  state.exporting.delete(key);
  state.fanOut.remove(entry.processor);
  await entry.processor.shutdown();
}

/**
 * Starts tracing for the process: W3C trace context, AsyncLocalStorage context, and (once an
 * exporter is configured) http, pg and nestjs-core instrumentations. Spans go to the OTLP endpoint and/or the exporter given; with
 * neither, nothing is exported but trace context still propagates (across the transport too).
 *
 * Call it before creating the Nest app, the pg pool or an HTTP server: modules already imported
 * are patched in place, but functions someone already destructured out of them are not.
 * Calling it again in the same process (dev mode composes several services) shares the running
 * SDK: the first call names the resource, each service's spans carry `coffer.service`, and each
 * call's exporter is added once.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const url = options.otlpEndpoint === undefined ? undefined : otlpTracesUrl(options.otlpEndpoint);
  const state = (sdk ??= boot(options.serviceName));
  state.handles++;
  const keys: unknown[] = [];
  if (url !== undefined || options.exporter !== undefined) ensureInstrumented(state);
  if (url !== undefined) {
    keys.push(acquire(state, url, () => new BatchSpanProcessor(new OTLPTraceExporter({ url }))));
  }
  const exporter = options.exporter;
  if (exporter !== undefined) keys.push(acquire(state, exporter, () => new SimpleSpanProcessor(exporter)));

  let released: Promise<void> | undefined;
  return {
    shutdown: () => {
      released ??= (async () => {
        for (const key of keys) await release(state, key);
        if (--state.handles > 0) return;
        if (sdk === state) sdk = undefined;
        await teardown(state);
      })();
      return released;
    },
  };
}
