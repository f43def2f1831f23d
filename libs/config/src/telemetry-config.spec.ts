import { ConfigError, parseServerConfig } from './index';

const minimal = 'listener "tcp" {\n address = "127.0.0.1:8200"\n tls_disable = true\n}\n';

describe('the telemetry block', () => {
  it('reads sampling, protocol, service name and resource attributes, and accepts Vault keys', () => {
    const config = parseServerConfig(`${minimal}
telemetry {
  otlp_endpoint             = "http://otel:4318"
  otlp_protocol             = "http/json"
  trace_sample_ratio        = 0.25
  job_trace_sample_ratio    = "0.01"
  service_name              = "coffer-eu"
  resource_attributes       = "deployment.environment=prod,team=ops%20crew"
  prometheus_retention_time = "30s"
  disable_hostname          = true
}`);
    expect(config.telemetry).toEqual({
      otlpEndpoint: 'http://otel:4318',
      otlpProtocol: 'http/json',
      sampleRatio: 0.25,
      jobSampleRatio: 0.01,
      serviceName: 'coffer-eu',
      resourceAttributes: { 'deployment.environment': 'prod', team: 'ops crew' },
    });
  });

  it("takes the OpenTelemetry SDK's variables over the file", () => {
    const env = {
      OTEL_SERVICE_NAME: 'from-env',
      OTEL_RESOURCE_ATTRIBUTES: 'k8s.namespace.name=vault',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    };
    const config = parseServerConfig(`${minimal}telemetry { service_name = "file" }`, { env });
    expect(config.telemetry).toEqual({
      serviceName: 'from-env',
      resourceAttributes: { 'k8s.namespace.name': 'vault' },
      otlpProtocol: 'http/protobuf',
      sampleRatio: 0.5,
    });
    expect(parseServerConfig(minimal, { env: { OTEL_TRACES_SAMPLER: 'always_off' } }).telemetry).toEqual({
      sampleRatio: 0,
    });
    // a ratio argument only means something to a ratio sampler
    expect(parseServerConfig(minimal, { env: { OTEL_TRACES_SAMPLER_ARG: '0.5' } }).telemetry).toEqual({});
  });

  it('refuses what it cannot use, with the reason', () => {
    const bad = (text: string, env: Record<string, string> = {}): string => {
      try {
        parseServerConfig(`${minimal}${text}`, { env });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(bad('telemetry { otlp_protocol = "grpc" }')).toContain(
      'otlp_protocol must be "http/protobuf" or "http/json"',
    );
    expect(bad('telemetry { trace_sample_ratio = 2 }')).toContain('must be between 0 and 1');
    expect(bad('', { OTEL_RESOURCE_ATTRIBUTES: 'novalue' })).toContain(
      'invalid resource attribute "novalue" (expected key=value)',
    );
  });
});
