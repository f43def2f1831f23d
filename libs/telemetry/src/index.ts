export { startTelemetry, type Telemetry, type TelemetryOptions, type TelemetrySettings } from './telemetry';
export { otlpTracesUrl } from './otlp';
export { SERVICE_ATTRIBUTE, withService } from './service-context';
export { CODE_VERSION, resourceAttributes } from './resource';
export { CofferSampler, JOB_ATTRIBUTE, isProbe } from './sampler';
export { scrubSpan, withoutQuery } from './span-hygiene';
export { ReportingExporter, EXPORT_FAILURE_LOG_INTERVAL_MS, type TelemetryLogger } from './export-reporting';
export {
  PROMETHEUS_CONTENT_TYPE,
  prometheusText,
  vaultMetricsJson,
  type VaultMetrics,
  type VaultGauge,
  type VaultSample,
} from './metrics';
export {
  CorrelatedConsoleLogger,
  REQUEST_ID_CONTEXT_KEY,
  installCorrelatedLogger,
  logCorrelation,
  withRequestId,
} from './log-correlation';
