import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, defineEvent, priorVersion, type EventOf } from '@coffer/event-store';
import { upgradeLegacyPolicy } from '../roles/cloud-b-role.rules';

/**
 * Everything cloud-b keeps about a mount, one stream per record (`cloud-b-<kind>/<mount>/<name>`):
 * the root config (with its secret key), the lease config, roles, and every IAM user Coffer
 * creates. Creating an IAM user is write-ahead: `UserIntended` (its name) is appended before the
 * first IAM call and `UserIssued` once every part exists, just before the answer; a user still
 * intended after the grace is removed by the recovery pass (kill -9, failed cleanup), and so is
 * an issued one whose lease core-sys does not hold once the registration cannot be coming any
 * more (`UserLeased` once it does). Root key rotation is bracketed the same way.
 */
export const CLOUD_B_RECORD_KINDS = ['root', 'lease', 'role', 'user'] as const;
export type CloudBRecordKind = (typeof CLOUD_B_RECORD_KINDS)[number];

export const rootSettingsSchema = z.object({
  access_key: z.string(),
  secret_key: z.string(),
  region: z.string(),
  iam_endpoint: z.string(),
  sts_endpoint: z.string(),
  max_retries: z.number().int(),
  /** beyond the contract: seconds an operation's calls may take (default 30) */
  request_timeout: z.number().int(),
});
export type RootSettings = z.infer<typeof rootSettingsSchema>;

export const roleEntrySchema = z.object({
  credential_types: z.array(z.string()),
  role_arns: z.array(z.string()).nullable(),
  policy_arns: z.array(z.string()).nullable(),
  policy_document: z.string(),
  iam_groups: z.array(z.string()).nullable(),
  iam_tags: stringMapSchema.nullable(),
  default_sts_ttl: z.number().int(),
  max_sts_ttl: z.number().int(),
  user_path: z.string(),
  permissions_boundary_arn: z.string(),
  /** written with the legacy `arn` / `policy`: creds/ serves iam_user only, sts/ the others */
  prohibit_flexible_cred_path: z.boolean(),
  /** an earlier version's data that does not parse */
  invalid_data: z.string(),
});
export type RoleEntry = z.infer<typeof roleEntrySchema>;

export const rootConfigWritten = defineEvent('CloudBRootConfigWritten', 1, rootSettingsSchema);
export const rootRotationIntended = defineEvent(
  'CloudBRootRotationIntended',
  1,
  z.object({ user_name: z.string(), old_access_key: z.string(), at: z.string() }),
);
/** The new key exists in IAM and is the engine's key from now on; the old one is still to delete. */
export const rootKeySwitched = defineEvent(
  'CloudBRootKeySwitched',
  1,
  z.object({ access_key: z.string(), secret_key: z.string(), at: z.string() }),
);
export const rootRotationSettled = defineEvent('CloudBRootRotationSettled', 1, z.object({}));
export const leaseConfigWritten = defineEvent(
  'CloudBLeaseConfigWritten',
  1,
  z.object({ lease: z.number().int(), lease_max: z.number().int() }),
);
/**
 * v1 was the stored legacy form (a policy document or an ARN as one string); reading it upgrades
 * it as Vault's upgradeLegacyPolicyEntry does, keeping what does not parse as invalid_data.
 */
export const roleWritten = defineEvent('CloudBRoleWritten', 2, roleEntrySchema, [
  priorVersion(1, z.object({ policy: z.string() }), (v1) => upgradeLegacyPolicy(v1.policy)),
]);
export const recordDeleted = defineEvent('CloudBRecordDeleted', 1, z.object({}));
export const userIntended = defineEvent(
  'CloudBUserIntended',
  1,
  z.object({ role: z.string(), at: z.string() }),
);
export const userIssued = defineEvent('CloudBUserIssued', 1, z.object({ at: z.string() }));
/** core-sys holds the user's lease: the lease alone ends it from now on. */
export const userLeased = defineEvent('CloudBUserLeased', 1, z.object({ at: z.string() }));
/** Its removal from IAM has begun (revocation, failed creds, recovery): a later pass finishes it. */
export const userRemovalStarted = defineEvent('CloudBUserRemovalStarted', 1, z.object({ at: z.string() }));

export const CLOUD_B_EVENT_TYPES = {
  rootConfigWritten,
  rootRotationIntended,
  rootKeySwitched,
  rootRotationSettled,
  leaseConfigWritten,
  roleWritten,
  recordDeleted,
  userIntended,
  userIssued,
  userLeased,
  userRemovalStarted,
} as const;
export type CloudBEvent = EventOf<typeof CLOUD_B_EVENT_TYPES>;

export interface CloudBRecordKey {
  mountUuid: string;
  kind: CloudBRecordKind;
  name: string;
}

export const cloudBStream = (k: CloudBRecordKey): string => `cloud-b-${k.kind}/${k.mountUuid}/${k.name}`;

export const CLOUD_B_LOG = defineAggregateLog({
  description: 'a cloud-b engine event',
  events: CLOUD_B_EVENT_TYPES,
  stream: (k: CloudBRecordKey) => cloudBStream(k),
});
