import { randomUUID } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

// resource semantic conventions still marked incubating (no stable ATTR_ constant yet)
const SERVICE_INSTANCE_ID = 'service.instance.id';
const SERVICE_NAMESPACE = 'service.namespace';

/** The Coffer release every process reports as service.version (as core-sys's SERVICE_VERSION). */
export const CODE_VERSION = '0.1.0';

export interface ResourceOptions {
  /** the process's own name ("coffer-kv"); OTEL_SERVICE_NAME (`serviceNameOverride`) wins */
  serviceName: string;
  serviceNameOverride?: string | undefined;
  /** OTEL_RESOURCE_ATTRIBUTES, already parsed */
  extra?: Readonly<Record<string, string>> | undefined;
  /** one id per process ("kv-host-1234"); a random UUID when not given */
  instanceId?: string | undefined;
}

/**
 * The resource of a process, with the OpenTelemetry SDK's precedence: OTEL_SERVICE_NAME over a
 * `service.name` in OTEL_RESOURCE_ATTRIBUTES over the process's own name; the other attributes of
 * OTEL_RESOURCE_ATTRIBUTES over Coffer's defaults.
 */
export function resourceAttributes(options: ResourceOptions): Attributes {
  const extra = options.extra ?? {};
  return {
    [SERVICE_NAMESPACE]: 'coffer',
    [ATTR_SERVICE_VERSION]: CODE_VERSION,
    [SERVICE_INSTANCE_ID]: options.instanceId ?? randomUUID(),
    ...extra,
    [ATTR_SERVICE_NAME]: options.serviceNameOverride ?? extra[ATTR_SERVICE_NAME] ?? options.serviceName,
  };
}
