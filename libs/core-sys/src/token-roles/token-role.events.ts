import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/** Token role events, one stream per role: `token-role/<name>`. */

export const TOKEN_ROLE_TYPES = ['service', 'batch', 'default-service', 'default-batch'] as const;

export const tokenRoleWrittenV1 = z.object({
  name: z.string(),
  allowedPolicies: z.array(z.string()),
  disallowedPolicies: z.array(z.string()),
  allowedPoliciesGlob: z.array(z.string()),
  disallowedPoliciesGlob: z.array(z.string()),
  /** null = never set (Vault reads it back as null) */
  allowedEntityAliases: z.array(z.string()).nullable(),
  orphan: z.boolean(),
  renewable: z.boolean(),
  pathSuffix: z.string(),
  tokenType: z.enum(TOKEN_ROLE_TYPES),
  tokenNoDefaultPolicy: z.boolean(),
  /** seconds; `period` and `explicitMaxTtl` are the deprecated fields as Vault keeps them */
  period: z.number().int().nonnegative(),
  tokenPeriod: z.number().int().nonnegative(),
  explicitMaxTtl: z.number().int().nonnegative(),
  tokenExplicitMaxTtl: z.number().int().nonnegative(),
  tokenBoundCidrs: z.array(z.string()),
  tokenNumUses: z.number().int().nonnegative(),
  writtenAt: z.number().int(),
});
export type TokenRoleWrittenData = z.infer<typeof tokenRoleWrittenV1>;

export const tokenRoleDeletedV1 = z.object({ deletedAt: z.number().int() });

export const TOKEN_ROLE_EVENT_TYPES = {
  written: { name: 'TokenRoleWritten', version: 1, schema: tokenRoleWrittenV1 },
  deleted: { name: 'TokenRoleDeleted', version: 1, schema: tokenRoleDeletedV1 },
} as const;

export type TokenRoleEvent = EventOf<typeof TOKEN_ROLE_EVENT_TYPES>;

export const tokenRoleStream = (name: string): string => `token-role/${name}`;

/** Token role streams, keyed by role name. */
export const TOKEN_ROLE_LOG = defineAggregateLog({
  description: 'a token role event',
  events: TOKEN_ROLE_EVENT_TYPES,
  stream: tokenRoleStream,
});
