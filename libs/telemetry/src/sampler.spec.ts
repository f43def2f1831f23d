import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { CofferSampler, JOB_ATTRIBUTE } from './sampler';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const parent = (flags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE, spanId: 'b7ad6b7169203331', traceFlags: flags });

describe('CofferSampler', () => {
  const sampler = new CofferSampler(1, 0);
  const decide = (...args: Parameters<CofferSampler['shouldSample']>) =>
    sampler.shouldSample(...args).decision;

  it("follows a parent's decision, remote or local", () => {
    expect(decide(parent(TraceFlags.SAMPLED), TRACE, 'pg', SpanKind.CLIENT, {}, [])).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(decide(parent(TraceFlags.NONE), TRACE, 'process', SpanKind.SERVER, {}, [])).toBe(
      SamplingDecision.NOT_RECORD,
    );
  });

  it('records new requests at the request ratio and drops parentless client or internal work', () => {
    expect(decide(ROOT_CONTEXT, TRACE, 'GET', SpanKind.SERVER, {}, [])).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(decide(ROOT_CONTEXT, TRACE, 'pg.connect', SpanKind.CLIENT, {}, [])).toBe(
      SamplingDecision.NOT_RECORD,
    );
    expect(decide(ROOT_CONTEXT, TRACE, 'refresh', SpanKind.INTERNAL, {}, [])).toBe(
      SamplingDecision.NOT_RECORD,
    );
    const none = new CofferSampler(0, 0);
    expect(none.shouldSample(ROOT_CONTEXT, TRACE, 'GET', SpanKind.SERVER, {}, []).decision).toBe(
      SamplingDecision.NOT_RECORD,
    );
  });

  it('records job runs only at the job ratio', () => {
    const job = { [JOB_ATTRIBUTE]: 'token sweep' };
    expect(decide(ROOT_CONTEXT, TRACE, 'job token sweep', SpanKind.INTERNAL, job, [])).toBe(
      SamplingDecision.NOT_RECORD,
    );
    const always = new CofferSampler(1, 1);
    expect(always.shouldSample(ROOT_CONTEXT, TRACE, 'job', SpanKind.INTERNAL, job, []).decision).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });

  it('records batch work when any request it served is recorded', () => {
    const link = (flags: TraceFlags) => ({
      context: { traceId: TRACE, spanId: 'b7ad6b7169203331', traceFlags: flags },
    });
    expect(decide(ROOT_CONTEXT, TRACE, 'commit', SpanKind.INTERNAL, {}, [link(0), link(1)])).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(decide(ROOT_CONTEXT, TRACE, 'commit', SpanKind.INTERNAL, {}, [link(0)])).toBe(
      SamplingDecision.NOT_RECORD,
    );
  });
});

describe('probes', () => {
  it('never records health checks and scrapes, but keeps their context unsampled', () => {
    const sampler = new CofferSampler(1, 1);
    for (const target of ['/health', '/metrics', '/v1/sys/health?standbyok=true']) {
      expect(
        sampler.shouldSample(ROOT_CONTEXT, TRACE, 'GET', SpanKind.SERVER, { 'http.target': target }, [])
          .decision,
      ).toBe(SamplingDecision.NOT_RECORD);
    }
    expect(
      sampler.shouldSample(
        ROOT_CONTEXT,
        TRACE,
        'GET',
        SpanKind.SERVER,
        { 'http.target': '/v1/sys/mounts' },
        [],
      ).decision,
    ).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });
});
