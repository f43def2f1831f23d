export { startTelemetry, type Telemetry, type TelemetryOptions } from './telemetry';
export { otlpTracesUrl } from './otlp';
export { SERVICE_ATTRIBUTE, withService } from './service-context';
