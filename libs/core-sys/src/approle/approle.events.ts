import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';
import { userTokenSettingsV1 } from '../userpass/userpass.events';

/**
 * AppRole events: one stream per role (`approle-role/<mount uuid>/<role name>`), one per secret
 * id (`approle-secret-id/<mount uuid>/<hmac>`), one per mount for its HMAC salt. Secret ids appear
 * only as HMAC-SHA256 under the mount's salt, which itself lives only in this (barrier-encrypted) log.
 */

export const roleWrittenV1 = z.object({
  mountUuid: z.string(),
  roleName: z.string(),
  roleId: z.string(),
  bindSecretId: z.boolean(),
  secretIdBoundCidrs: z.array(z.string()),
  secretIdNumUses: z.number().int().nonnegative(),
  /** seconds, 0 = no expiry */
  secretIdTtl: z.number().int().nonnegative(),
  localSecretIds: z.boolean(),
  settings: userTokenSettingsV1,
  /** the deprecated policies / period as Vault keeps them (tokenutil.UpgradeValue); absent before */
  legacyPolicies: z.array(z.string()).default([]),
  legacyPeriod: z.number().int().nonnegative().default(0),
  writtenAt: z.number().int(),
});
export type RoleWrittenData = z.infer<typeof roleWrittenV1>;

export const roleIdSetV1 = z.object({ roleId: z.string(), setAt: z.number().int() });
export const roleDeletedV1 = z.object({ deletedAt: z.number().int() });

export const APPROLE_ROLE_EVENT_TYPES = {
  written: { name: 'ApproleRoleWritten', version: 1, schema: roleWrittenV1 },
  roleIdSet: { name: 'ApproleRoleIdSet', version: 1, schema: roleIdSetV1 },
  deleted: { name: 'ApproleRoleDeleted', version: 1, schema: roleDeletedV1 },
} as const;
export type ApproleRoleEvent = EventOf<typeof APPROLE_ROLE_EVENT_TYPES>;

export const secretIdCreatedV1 = z.object({
  mountUuid: z.string(),
  roleName: z.string(),
  /** HMAC-SHA256 (hex) of role name and secret id under the mount's salt */
  hmac: z.string(),
  accessor: z.string(),
  metadata: stringMapSchema,
  cidrList: z.array(z.string()),
  tokenBoundCidrs: z.array(z.string()),
  /** 0 = unlimited */
  numUses: z.number().int().nonnegative(),
  ttl: z.number().int().nonnegative(),
  createdAt: z.number().int(),
  /** null = never */
  expiresAt: z.number().int().nullable(),
});
export type SecretIdCreatedData = z.infer<typeof secretIdCreatedV1>;

export const secretIdUsedV1 = z.object({ usedAt: z.number().int() });
export const secretIdDestroyedV1 = z.object({ destroyedAt: z.number().int() });

export const APPROLE_SECRET_ID_EVENT_TYPES = {
  created: { name: 'ApproleSecretIdCreated', version: 1, schema: secretIdCreatedV1 },
  used: { name: 'ApproleSecretIdUsed', version: 1, schema: secretIdUsedV1 },
  destroyed: { name: 'ApproleSecretIdDestroyed', version: 1, schema: secretIdDestroyedV1 },
} as const;
export type ApproleSecretIdEvent = EventOf<typeof APPROLE_SECRET_ID_EVENT_TYPES>;

export const APPROLE_SALT_CREATED = {
  name: 'ApproleSaltCreated',
  version: 1,
  schema: z.object({ salt: z.string() }),
} as const;

/** A role: a mount and a role name (lower-cased). */
export interface RoleKey {
  mountUuid: string;
  roleName: string;
}

/** A secret id: a mount and the HMAC of the secret id. */
export interface SecretIdKey {
  mountUuid: string;
  hmac: string;
}

export const APPROLE_ROLE_LOG = defineAggregateLog({
  description: 'an approle role event',
  events: APPROLE_ROLE_EVENT_TYPES,
  stream: (role: RoleKey) => `approle-role/${role.mountUuid}/${role.roleName}`,
});

export const APPROLE_SECRET_ID_LOG = defineAggregateLog({
  description: 'an approle secret id event',
  events: APPROLE_SECRET_ID_EVENT_TYPES,
  stream: (id: SecretIdKey) => `approle-secret-id/${id.mountUuid}/${id.hmac}`,
});

/** The mount's salt: one event per mount, never folded into a read model. */
export const APPROLE_SALT_LOG = defineAggregateLog({
  description: 'an approle salt event',
  events: { created: APPROLE_SALT_CREATED },
  stream: (mountUuid: string) => `approle-salt/${mountUuid}`,
});
