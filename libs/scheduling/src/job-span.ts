import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';

const TRACER_NAME = '@coffer/scheduling';
/** The attribute @coffer/telemetry's sampler recognises a job run by (its own traces, rarely sampled). */
const JOB_ATTRIBUTE = 'coffer.job';

/**
 * Runs one pass of a background job (a sweep, a leader heartbeat, a keyring refresh) under one
 * span of its own, `job <name>`, the root of its own trace: whatever the pass queries or sends is
 * grouped under it instead of each statement becoming a root trace, and the sampler can record
 * job runs at their own (low) rate. A failed pass marks the span as an error, with no message
 * (messages may quote data).
 */
export function runJob<T>(name: string, pass: () => Promise<T>): Promise<T> {
  const tracer = trace.getTracer(TRACER_NAME);
  // Keep what the caller's context carries (the service name) but never its span.
  const parent = trace.deleteSpan(context.active());
  const span = tracer.startSpan(
    `job ${name}`,
    { kind: SpanKind.INTERNAL, root: true, attributes: { [JOB_ATTRIBUTE]: name } },
    parent === ROOT_CONTEXT ? ROOT_CONTEXT : parent,
  );
  return context.with(trace.setSpan(parent, span), pass).then(
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
