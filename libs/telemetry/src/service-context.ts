import { context, type Context } from '@opentelemetry/api';
// the key @coffer/transport sets around every handler it runs
import { SERVICE_CONTEXT_KEY } from '@coffer/transport';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { scrubSpan } from './span-hygiene';

/** Span attribute naming the service a span belongs to (several services share dev mode's process). */
export const SERVICE_ATTRIBUTE = 'coffer.service';

/** Runs `fn` with every span started inside attributed to `service`. */
export function withService<T>(service: string, fn: () => T): T {
  return context.with(context.active().setValue(SERVICE_CONTEXT_KEY, service), fn);
}

export function serviceIn(ctx: Context): string | undefined {
  const value = ctx.getValue(SERVICE_CONTEXT_KEY);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The one processor the tracer provider knows: stamps the service attribute, strips query strings
 * and credentials from URL attributes (at start and again before the span ends, for attributes
 * set late), then forwards to the exporting processors, which come and go as startTelemetry handles are taken and released.
 */
export class FanOutSpanProcessor implements SpanProcessor {
  private processors: SpanProcessor[] = [];

  add(processor: SpanProcessor): void {
    this.processors = [...this.processors, processor];
  }

  remove(processor: SpanProcessor): void {
    this.processors = this.processors.filter((p) => p !== processor);
  }

  onStart(span: Span, parentContext: Context): void {
    const service = serviceIn(parentContext);
    if (service !== undefined && span.attributes[SERVICE_ATTRIBUTE] === undefined) {
      span.setAttribute(SERVICE_ATTRIBUTE, service);
    }
    scrubSpan(span);
    for (const p of this.processors) p.onStart(span, parentContext);
  }

  onEnding(span: Span): void {
    scrubSpan(span);
    for (const p of this.processors) p.onEnding?.(span);
  }

  onEnd(span: ReadableSpan): void {
    for (const p of this.processors) p.onEnd(span);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.processors.map((p) => p.forceFlush()));
  }

  async shutdown(): Promise<void> {
    const processors = this.processors;
    this.processors = [];
    await Promise.all(processors.map((p) => p.shutdown()));
  }
}
