import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * Everything cloud-a keeps about a mount, one stream per record (`cloud-a-<kind>/<mount uuid>/<name>`):
 * the config (with the client secret), roles, and each issued credential. A credential's creation in
 * Azure is write-ahead: `CloudACredentialIntended` (what is about to be created, with the names and
 * role-assignment ids chosen beforehand) before the first Azure call, `…Progressed` after each object
 * Azure created, `…Issued` before the answer; a creation not issued by `pending_until` is undone by
 * the recovery pass (`…Abandoned`, then `…Removed`), as is any credential whose lease is revoked.
 * An issued credential is the recovery pass's too until core-sys is seen holding its lease
 * (`…Leased`): one whose lease was never registered (the gateway timed out, or a kill -9 came
 * between the answer and the registration) is undone once the registration cannot be coming.
 */
export const CLOUD_A_RECORD_KINDS = ['config', 'role', 'cred'] as const;
export type CloudARecordKind = (typeof CLOUD_A_RECORD_KINDS)[number];

export const cloudASettingsSchema = z.object({
  subscription_id: z.string(),
  tenant_id: z.string(),
  client_id: z.string(),
  client_secret: z.string(),
  environment: z.string(),
  password_policy: z.string(),
  authority_host: z.string(),
  graph_endpoint: z.string(),
  resource_manager_endpoint: z.string(),
  ca_certificate: z.string(),
  request_timeout: z.number().int(),
});
export type CloudASettings = z.infer<typeof cloudASettingsSchema>;

export const cloudARoleSchema = z.object({
  roles: z.array(z.object({ role_name: z.string(), role_id: z.string(), scope: z.string() })),
  groups: z.array(z.object({ group_name: z.string(), object_id: z.string() })),
  application_object_id: z.string(),
  /** the static application's client id (appId) */
  application_id: z.string(),
  ttl: z.number().int(),
  max_ttl: z.number().int(),
});
export type CloudARole = z.infer<typeof cloudARoleSchema>;

export const credentialPlanSchema = z.object({
  role: z.string(),
  /** static: a password on the role's existing application; dynamic: a new application */
  static: z.boolean(),
  /** the new application's (dynamic) or the password's (static) display name, unique */
  display_name: z.string(),
  /** static: the role's application, known before anything is created */
  application_object_id: z.string(),
  assignments: z.array(z.object({ id: z.string(), role_definition_id: z.string() })),
  groups: z.array(z.string()),
  /** ISO time: a creation not issued by then is abandoned and undone */
  pending_until: z.string(),
});
export type CredentialPlan = z.infer<typeof credentialPlanSchema>;

export const credentialProgressSchema = z.object({
  application_object_id: z.string().optional(),
  app_id: z.string().optional(),
  service_principal_id: z.string().optional(),
  key_id: z.string().optional(),
});
export type CredentialProgress = z.infer<typeof credentialProgressSchema>;

export const cloudAConfigWritten = defineEvent(
  'CloudAConfigWritten',
  1,
  z.object({ settings: cloudASettingsSchema }),
);
export const cloudARecordDeleted = defineEvent('CloudARecordDeleted', 1, z.object({}));
export const cloudARoleWritten = defineEvent('CloudARoleWritten', 1, z.object({ role: cloudARoleSchema }));
export const cloudACredentialIntended = defineEvent('CloudACredentialIntended', 1, credentialPlanSchema);
export const cloudACredentialProgressed = defineEvent(
  'CloudACredentialProgressed',
  1,
  credentialProgressSchema,
);
export const cloudACredentialIssued = defineEvent('CloudACredentialIssued', 1, z.object({ at: z.string() }));
/** core-sys holds its lease: from now on the lease alone ends it (the recovery pass stops asking). */
export const cloudACredentialLeased = defineEvent('CloudACredentialLeased', 1, z.object({ at: z.string() }));
/** The recovery pass took the creation over: the creator's next append fails and it stops. */
export const cloudACredentialAbandoned = defineEvent(
  'CloudACredentialAbandoned',
  1,
  z.object({ at: z.string() }),
);
/** Everything it created is gone from Azure (revoked, or an abandoned creation undone). */
export const cloudACredentialRemoved = defineEvent(
  'CloudACredentialRemoved',
  1,
  z.object({ at: z.string() }),
);

export const CLOUD_A_EVENT_TYPES = {
  cloudAConfigWritten,
  cloudARecordDeleted,
  cloudARoleWritten,
  cloudACredentialIntended,
  cloudACredentialProgressed,
  cloudACredentialIssued,
  cloudACredentialLeased,
  cloudACredentialAbandoned,
  cloudACredentialRemoved,
} as const;
export type CloudAEvent = EventOf<typeof CLOUD_A_EVENT_TYPES>;

export interface CloudARecordKey {
  mountUuid: string;
  kind: CloudARecordKind;
  name: string;
}

export const cloudAStream = (k: CloudARecordKey): string => `cloud-a-${k.kind}/${k.mountUuid}/${k.name}`;

export const CLOUD_A_LOG = defineAggregateLog({
  description: 'a cloud-a engine event',
  events: CLOUD_A_EVENT_TYPES,
  stream: (k: CloudARecordKey) => cloudAStream(k),
});
