import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { DomainError, SERVER_FAULT_CODES } from '@coffer/contracts';
import { ATTR_SERVICE, ATTR_SUBJECT, type SubjectInfo } from './subjects';
import type { Headers } from './transport-types';

/**
 * Context key naming the service a piece of work runs for. @coffer/telemetry reads this key to stamp `coffer.service` on child spans (pg, nest) when
 * several services share one process (dev mode).
 */
export const SERVICE_CONTEXT_KEY = createContextKey('coffer.service');

const TRACER_NAME = '@coffer/transport';
let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

/** The tracer of the current global provider, re-resolved only when telemetry is (re)started. */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== cachedProvider || cachedTracer === undefined) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer(TRACER_NAME);
  }
  return cachedTracer;
}

const clientOptions = new WeakMap<SubjectInfo, SpanOptions>();

/** Starts `send <subject>` as a child of the active context; returns the context to inject. */
export function startClientSpan(info: SubjectInfo): Context {
  let options = clientOptions.get(info);
  if (options === undefined) {
    options = { kind: SpanKind.CLIENT, attributes: info.clientAttributes };
    clientOptions.set(info, options);
  }
  const parent = context.active();
  return trace.setSpan(parent, tracer().startSpan(info.clientSpanName, options, parent));
}

export function injectTraceContext<C>(ctx: Context, carrier: C, setter: TextMapSetter<C>): void {
  propagation.inject(ctx, carrier, setter);
}

/** Server spans descend only from the propagated header, never from whatever context is ambient. */
export function startServerSpan(
  name: string,
  options: SpanOptions,
  headers: Headers,
  queue: string,
): Context {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer().startSpan(name, options, parent);
  return trace.setSpan(parent, span).setValue(SERVICE_CONTEXT_KEY, queue);
}

export function serverSpanOptions(subject: string, queue: string): SpanOptions {
  return { kind: SpanKind.SERVER, attributes: { [ATTR_SUBJECT]: subject, [ATTR_SERVICE]: queue } };
}

/** Attribute naming the domain error code a request answered with (a code, never a message). */
export const ATTR_ERROR_CODE = 'coffer.error_code';

/**
 * Ends the span of `ctx`; an error only contributes its code (messages may quote input). As for
 * HTTP server spans, only a failure of the service (a 5xx code, a crash, a time-out) marks the
 * span as an error; a 4xx answer (not found, denied, bad input) is a successful exchange, its
 * code kept as an attribute, on both ends so that one trace tells one story.
 */
export function endSpan(ctx: Context, error?: unknown): void {
  const span: Span | undefined = trace.getSpan(ctx);
  if (span === undefined) return;
  if (error !== undefined) {
    const code = error instanceof DomainError ? error.code : 'internal';
    span.setAttribute(ATTR_ERROR_CODE, code);
    if (!(error instanceof DomainError) || SERVER_FAULT_CODES.has(error.code)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    }
  }
  span.end();
}

/** The trace id of the active context, for log lines; undefined outside a trace. */
export function activeTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx !== undefined && isSpanContextValid(ctx) ? ctx.traceId : undefined;
}
