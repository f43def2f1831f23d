import {
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';

const TRACER_NAME = '@coffer/event-store';
export const ATTR_BATCH_SIZE = 'coffer.batch.size';

/**
 * Runs work done once for several requests (a group commit, a batched read) under a span of its
 * own. Served by one request, the batch is that request's work: a child in its trace. Served by
 * several, it starts its own trace, linked to the span of every request it served, so that no
 * request's trace claims the others' work. `requests` are the contexts the requests were active
 * in when they queued (context.active() at submit). The service name those contexts carry is
 * kept.
 */
export function inBatchSpan<T>(
  name: string,
  requests: readonly Context[],
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const first = requests[0] ?? context.active();
  const single = requests.length <= 1;
  const parent = single ? first : trace.deleteSpan(first);
  const links: Link[] = [];
  if (!single) {
    const seen = new Set<string>();
    for (const ctx of requests) {
      const spanContext = trace.getSpanContext(ctx);
      if (spanContext === undefined || !isSpanContextValid(spanContext) || seen.has(spanContext.spanId))
        continue;
      seen.add(spanContext.spanId);
      links.push({ context: spanContext });
    }
  }
  const span = trace.getTracer(TRACER_NAME).startSpan(
    name,
    {
      kind: SpanKind.INTERNAL,
      root: !single,
      links,
      attributes: { ...attributes, [ATTR_BATCH_SIZE]: requests.length },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), work).then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    },
  );
}
