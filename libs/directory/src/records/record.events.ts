import { z } from 'zod';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * Everything the directory engine keeps about a mount, one stream per record
 * (`directory-<kind>/<mount uuid>/<name>`): the config (with the bind password), roles (with their
 * creds), library sets and library accounts (with their password and check-out). A password
 * change in the directory is bracketed: `PasswordRotationIntended` (the new password, appended at
 * the version read, so one replica wins) before the LDAP write, then `PasswordRotated` or
 * `PasswordRotationAbandoned`; a pending intent is finished by the recovery pass.
 */
export const RECORD_KINDS = ['config', 'role', 'set', 'account'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const connectionSchema = z.object({
  url: z.string(),
  binddn: z.string(),
  userdn: z.string(),
  upndomain: z.string(),
  userattr: z.string(),
  schema: z.enum(['ad', 'openldap']),
  certificate: z.string(),
  insecure_tls: z.boolean(),
  starttls: z.boolean(),
  tls_min_version: z.string(),
  tls_max_version: z.string(),
  request_timeout: z.number().int(),
  connection_timeout: z.number().int(),
  case_sensitive_names: z.boolean(),
});
export type ConnectionSettings = z.infer<typeof connectionSchema>;

export const passwordSettingsSchema = z.object({
  ttl: z.number().int(),
  max_ttl: z.number().int(),
  length: z.number().int(),
  formatter: z.string(),
  password_policy: z.string(),
  last_rotation_tolerance: z.number().int(),
});
export type PasswordSettings = z.infer<typeof passwordSettingsSchema>;

export const configWritten = defineEvent(
  'DirectoryConfigWritten',
  1,
  z.object({
    connection: connectionSchema,
    passwords: passwordSettingsSchema,
    /** absent: the bind password is kept */
    bindpass: z.string().optional(),
  }),
);
export const recordDeleted = defineEvent('DirectoryRecordDeleted', 1, z.object({}));
export const roleWritten = defineEvent(
  'DirectoryRoleWritten',
  1,
  z.object({ service_account_name: z.string(), ttl: z.number().int() }),
);
export const setWritten = defineEvent(
  'DirectorySetWritten',
  1,
  z.object({
    service_account_names: z.array(z.string()),
    ttl: z.number().int(),
    max_ttl: z.number().int(),
    disable_check_in_enforcement: z.boolean(),
  }),
);
export const accountEnrolled = defineEvent('DirectoryAccountEnrolled', 1, z.object({ set: z.string() }));
export const accountCheckedOut = defineEvent(
  'DirectoryAccountCheckedOut',
  1,
  z.object({
    checkout_id: z.string(),
    entity_id: z.string(),
    token_ref: z.string(),
    accessor: z.string(),
    /** ISO time of the check-out (absent in check-outs recorded before it was kept) */
    at: z.string().optional(),
  }),
);
/**
 * core-sys holds the check-out's lease: the lease alone ends it from now on. Until then the
 * rotation sweep checks, and checks in an account whose lease never reached core-sys (the gateway
 * gave up on the request, or a kill -9 came between the answer and the registration).
 */
export const checkOutLeased = defineEvent(
  'DirectoryCheckOutLeased',
  1,
  z.object({ checkout_id: z.string() }),
);
export const passwordRotationIntended = defineEvent(
  'DirectoryPasswordRotationIntended',
  1,
  z.object({ password: z.string(), at: z.string() }),
);
/** The intended password is the directory's now; for a checked-out account it is the check-in. */
export const passwordRotated = defineEvent('DirectoryPasswordRotated', 1, z.object({ at: z.string() }));
export const passwordRotationAbandoned = defineEvent('DirectoryPasswordRotationAbandoned', 1, z.object({}));

export const RECORD_EVENT_TYPES = {
  configWritten,
  recordDeleted,
  roleWritten,
  setWritten,
  accountEnrolled,
  accountCheckedOut,
  checkOutLeased,
  passwordRotationIntended,
  passwordRotated,
  passwordRotationAbandoned,
} as const;
export type RecordEvent = EventOf<typeof RECORD_EVENT_TYPES>;

export interface RecordKey {
  mountUuid: string;
  kind: RecordKind;
  name: string;
}

export const recordStream = (k: RecordKey): string => `directory-${k.kind}/${k.mountUuid}/${k.name}`;

export const RECORD_LOG = defineAggregateLog({
  description: 'a directory engine event',
  events: RECORD_EVENT_TYPES,
  stream: (k: RecordKey) => recordStream(k),
});
