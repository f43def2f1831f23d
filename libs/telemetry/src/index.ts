export { startTelemetry, type Telemetry, type TelemetryOptions } from './telemetry';
export { otlpTracesUrl } from './otlp';
export { SERVICE_ATTRIBUTE, SERVICE_CONTEXT_KEY, withService } from './service-context';
