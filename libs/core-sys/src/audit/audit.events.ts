import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * Audit configuration events, one stream `audit/config`. A device's salt (its HMAC key) lives only
 * here, so under the barrier; the read model never holds it.
 */

export const auditDeviceEnabledV1 = z.object({
  path: z.string(),
  type: z.string(),
  description: z.string(),
  options: z.record(z.string(), z.string()),
  local: z.boolean(),
  salt: z.string(),
  enabledAt: z.number().int(),
});
export type AuditDeviceEnabledData = z.infer<typeof auditDeviceEnabledV1>;

export const auditDeviceDisabledV1 = z.object({ path: z.string(), disabledAt: z.number().int() });
export const auditHeaderSetV1 = z.object({ name: z.string(), hmac: z.boolean() });
export const auditHeaderRemovedV1 = z.object({ name: z.string() });

export const AUDIT_EVENT_TYPES = {
  enabled: { name: 'AuditDeviceEnabled', version: 1, schema: auditDeviceEnabledV1 },
  disabled: { name: 'AuditDeviceDisabled', version: 1, schema: auditDeviceDisabledV1 },
  headerSet: { name: 'AuditHeaderSet', version: 1, schema: auditHeaderSetV1 },
  headerRemoved: { name: 'AuditHeaderRemoved', version: 1, schema: auditHeaderRemovedV1 },
} as const;

export type AuditEvent = EventOf<typeof AUDIT_EVENT_TYPES>;

export const AUDIT_STREAM = 'audit/config';

/** The cluster's audit configuration: one stream. */
export const AUDIT_LOG = defineAggregateLog({
  description: 'an audit configuration event',
  events: AUDIT_EVENT_TYPES,
  stream: () => AUDIT_STREAM,
});
