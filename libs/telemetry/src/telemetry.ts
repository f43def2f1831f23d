import { createRequire } from 'node:module';
import { Logger } from '@nestjs/common';
import { context, propagation, trace, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { installCorrelatedLogger } from './log-correlation';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type * as OtlpHttpJson from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtlpHttpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as HttpInstrumentationModule from '@opentelemetry/instrumentation-http';
import type * as NestInstrumentationModule from '@opentelemetry/instrumentation-nestjs-core';
import type * as PgInstrumentationModule from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ReportingExporter, type TelemetryLogger } from './export-reporting';
import { otlpTracesUrl } from './otlp';
import { resourceAttributes } from './resource';
import { CofferSampler } from './sampler';
import { FanOutSpanProcessor } from './service-context';

/** The server config's `telemetry` block (and its OTEL_* environment overrides), as parsed. */
export interface TelemetrySettings {
  otlpEndpoint?: string | undefined;
  /** OTEL_EXPORTER_OTLP_PROTOCOL: protobuf (the OTLP default) or JSON over HTTP */
  otlpProtocol?: 'http/protobuf' | 'http/json' | undefined;
  /** share of new request traces recorded (0..1, default 1) */
  sampleRatio?: number | undefined;
  /** share of background job runs recorded (0..1, default 0: an idle cluster exports nothing) */
  jobSampleRatio?: number | undefined;
  /** OTEL_SERVICE_NAME */
  serviceName?: string | undefined;
  /** OTEL_RESOURCE_ATTRIBUTES, parsed */
  resourceAttributes?: Readonly<Record<string, string>> | undefined;
}

export interface TelemetryOptions {
  /** resource service.name of the process (the first caller's name wins; see startTelemetry) */
  serviceName: string;
  /** OTLP/HTTP collector, e.g. "http://collector:4318" (batched export); settings.otlpEndpoint too */
  otlpEndpoint?: string | undefined;
  /** any other exporter, e.g. InMemorySpanExporter in tests (exported as each span ends) */
  exporter?: SpanExporter;
  /** the server config's telemetry block */
  settings?: TelemetrySettings;
  /** service.instance.id (the process's transport name, so traces and NATS agree) */
  instanceId?: string;
  /** where failed exports are reported (rate-limited); Nest's logger by default */
  logger?: TelemetryLogger;
}

export interface Telemetry {
  /** Exports what has ended so far (tests, before a process stops). */
  flush(): Promise<void>;
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

const load = createRequire(__filename);

function patchLoadedModules(): void {
  for (const name of INSTRUMENTED_MODULES) {
    try {
      load(name);
    } catch {
      // Not installed in this app: nothing to instrument.
    }
  }
}

function boot(options: TelemetryOptions): Sdk {
  const fanOut = new FanOutSpanProcessor();
  const settings = options.settings ?? {};
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(
      resourceAttributes({
        serviceName: options.serviceName,
        serviceNameOverride: settings.serviceName,
        extra: settings.resourceAttributes,
        instanceId: options.instanceId,
      }),
    ),
    sampler: new CofferSampler(settings.sampleRatio ?? 1, settings.jobSampleRatio ?? 0),
    spanProcessors: [fanOut],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // every log line written while a span is active names its trace
  installCorrelatedLogger();
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
  // Loaded here, not imported: with no exporter (dev mode, most tests) they and the OTLP exporters
  // (about 350 modules) would only lengthen every start.
  const { HttpInstrumentation } = load(
    '@opentelemetry/instrumentation-http',
  ) as typeof HttpInstrumentationModule;
  const { PgInstrumentation } = load('@opentelemetry/instrumentation-pg') as typeof PgInstrumentationModule;
  const { NestInstrumentation } = load(
    '@opentelemetry/instrumentation-nestjs-core',
  ) as typeof NestInstrumentationModule;
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
 * exporter is configured) http, pg and nestjs-core instrumentations. Spans go to the OTLP endpoint
 * (protobuf unless the settings say JSON) and/or the exporter given; with neither, nothing is
 * exported but trace context still propagates (across the transport too). The first call's
 * settings choose the resource and the sampling (see CofferSampler).
 *
 * Call it before creating the Nest app, the pg pool or an HTTP server: modules already imported
 * are patched in place, but functions someone already destructured out of them are not.
 * Calling it again in the same process (dev mode composes several services) shares the running
 * SDK: the first call names the resource, each service's spans carry `coffer.service`, and each
 * call's exporter is added once.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const endpoint = options.otlpEndpoint ?? options.settings?.otlpEndpoint;
  const url = endpoint === undefined ? undefined : otlpTracesUrl(endpoint);
  const state = (sdk ??= boot(options));
  state.handles++;
  const keys: unknown[] = [];
  if (url !== undefined || options.exporter !== undefined) ensureInstrumented(state);
  if (url !== undefined) {
    const protocol = options.settings?.otlpProtocol ?? 'http/protobuf';
    const logger = options.logger ?? new Logger('Telemetry');
    keys.push(
      acquire(state, url, () => {
        const otlp =
          protocol === 'http/json'
            ? new (load('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttpJson).OTLPTraceExporter({
                url,
              })
            : new (
                load('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpHttpProto
              ).OTLPTraceExporter({
                url,
              });
        return new BatchSpanProcessor(new ReportingExporter(otlp, url, logger));
      }),
    );
  }
  const exporter = options.exporter;
  if (exporter !== undefined) keys.push(acquire(state, exporter, () => new SimpleSpanProcessor(exporter)));

  let released: Promise<void> | undefined;
  return {
    flush: () => state.fanOut.forceFlush(),
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
