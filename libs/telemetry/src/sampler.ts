import {
  SpanKind,
  TraceFlags,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
} from '@opentelemetry/api';
import {
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace-base';

/**
 * Requests that are probes, not work: the ops listener's /health and /metrics, and the API's
 * sys/health (load balancers poll it). `target` is the request target, query included or not.
 */
export function isProbe(target: string): boolean {
  const path = target.split('?', 1)[0] ?? '';
  return path === '/health' || path === '/metrics' || path === '/v1/sys/health';
}

/** The request target of an incoming HTTP request span, as the http instrumentation sets it at start. */
function targetOf(attributes: Attributes): string | undefined {
  const target = attributes['http.target'] ?? attributes['url.path'];
  return typeof target === 'string' ? target : undefined;
}

/** Attribute a background job's run span carries (its name), set when the span starts. */
export const JOB_ATTRIBUTE = 'coffer.job';

const DROP: SamplingResult = { decision: SamplingDecision.NOT_RECORD };
const KEEP: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };

const SAMPLED_BIT: number = TraceFlags.SAMPLED;
const sampled = (flags: number): boolean => (flags & SAMPLED_BIT) === SAMPLED_BIT;

/**
 * Which traces a process records. A span with a parent follows its parent's decision (remote
 * parents included, so a trace is whole or absent across services). A new trace is recorded when
 * it is
 * - a request (a SERVER span: an HTTP request, or a transport message nobody traced before):
 *   at `requestRatio`, but never a probe (health checks, scrapes). A probe is not left
 *   untraced but traced as "not sampled", so that the services it calls do not start traces of
 *   their own;
 * - a background job run (`coffer.job`): at `jobRatio`, by default never, so an idle cluster
 *   exports nothing;
 * - batch work (a span with links, e.g. a group commit): when any request it served is recorded.
 * Any other span without a parent (a pool's reconnect, a cache refresh query) is noise: dropped.
 */
export class CofferSampler implements Sampler {
  readonly #requests: Sampler;
  readonly #jobs: Sampler;

  constructor(
    private readonly requestRatio: number,
    private readonly jobRatio: number,
  ) {
    this.#requests = new TraceIdRatioBasedSampler(requestRatio);
    this.#jobs = new TraceIdRatioBasedSampler(jobRatio);
  }

  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const parent = trace.getSpanContext(context);
    if (parent !== undefined && isSpanContextValid(parent)) return sampled(parent.traceFlags) ? KEEP : DROP;
    if (attributes[JOB_ATTRIBUTE] !== undefined) {
      return this.#jobs.shouldSample(context, traceId, name, kind, attributes, links);
    }
    if (links.length > 0) return links.some((l) => sampled(l.context.traceFlags)) ? KEEP : DROP;
    if (kind === SpanKind.SERVER) {
      const target = targetOf(attributes);
      if (target !== undefined && isProbe(target)) return DROP;
      return this.#requests.shouldSample(context, traceId, name, kind, attributes, links);
    }
    return DROP;
  }

  toString(): string {
    return `CofferSampler{requests=${this.requestRatio}, jobs=${this.jobRatio}}`;
  }
}
