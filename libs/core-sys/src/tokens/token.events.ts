import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * Token lifecycle events, one stream per token: `token/<accessor>`. The event log is the source
 * of truth (encrypted by the barrier); the `tokens` read model is derived from it. Tokens appear
 * only as HMACs (tokenHash for lookups, tokenRef for per-token state elsewhere).
 */

export const tokenCreatedV1 = z.object({
  accessor: z.string(),
  tokenHash: z.string(),
  tokenRef: z.string(),
  /** null = orphan */
  parentAccessor: z.string().nullable(),
  policies: z.array(z.string()),
  meta: stringMapSchema,
  displayName: z.string(),
  /** 0 = unlimited */
  numUses: z.number().int().nonnegative(),
  renewable: z.boolean(),
  /** TTL granted at creation, seconds (lookup's creation_ttl) */
  creationTtl: z.number().int().nonnegative(),
  /** base TTL for renewals without increment, seconds (0 = the mount default at renewal time) */
  renewTtl: z.number().int().nonnegative(),
  /** backend max TTL (auth method's token_max_ttl), seconds; 0 = none */
  backendMaxTtl: z.number().int().nonnegative(),
  explicitMaxTtl: z.number().int().nonnegative(),
  period: z.number().int().nonnegative(),
  /** unix ms */
  createdAt: z.number().int(),
  /** unix ms; 0 = never expires */
  expiresAt: z.number().int().nonnegative(),
  /** creation path, e.g. "auth/token/create", "auth/userpass/login/bob" */
  path: z.string(),
  entityId: z.string(),
  /** accessor of the auth mount that issued the token ("" for root tokens from init) */
  mountAccessor: z.string(),
  /** the token role it was created with (auth/token/create/:role); absent in older events */
  role: z.string().optional(),
  /** token_bound_cidrs: addresses it may be used from (normalised CIDRs); absent = anywhere */
  boundCidrs: z.array(z.string()).optional(),
  /** the namespace it belongs to ("ns1/ns2/"); absent = root */
  namespace: z.string().optional(),
});
export type TokenCreatedData = z.infer<typeof tokenCreatedV1>;

export const tokenRenewedV1 = z.object({
  ttl: z.number().int().nonnegative(),
  expiresAt: z.number().int().nonnegative(),
  renewedAt: z.number().int(),
});
export type TokenRenewedData = z.infer<typeof tokenRenewedV1>;

/**
 * One use of a use-limited token. The last use marks it exhausted: it is invalid from then on,
 * and revoked (children, cubbyhole) by the sweeper once the request that used it has finished.
 */
export const tokenUsedV1 = z.object({
  remaining: z.number().int().nonnegative(),
  exhaustedAt: z.number().int().nullable(),
});
export type TokenUsedData = z.infer<typeof tokenUsedV1>;

/** The parent was revoked with revoke-orphan: this token lives on without a parent. */
export const tokenOrphanedV1 = z.object({ orphanedAt: z.number().int() });
export type TokenOrphanedData = z.infer<typeof tokenOrphanedV1>;

export const REVOCATION_REASONS = ['revoked', 'parent_revoked', 'expired', 'uses_exhausted'] as const;
export const tokenRevokedV1 = z.object({
  reason: z.enum(REVOCATION_REASONS),
  revokedAt: z.number().int(),
});
export type TokenRevokedData = z.infer<typeof tokenRevokedV1>;
export type RevocationReason = TokenRevokedData['reason'];

/** The cluster's token salt (stream `token-salt`), created once while unsealed. */
export const tokenSaltCreatedV1 = z.object({ salt: z.string() });

export const TOKEN_EVENT_TYPES = {
  created: { name: 'TokenCreated', version: 1, schema: tokenCreatedV1 },
  renewed: { name: 'TokenRenewed', version: 1, schema: tokenRenewedV1 },
  used: { name: 'TokenUsed', version: 1, schema: tokenUsedV1 },
  orphaned: { name: 'TokenOrphaned', version: 1, schema: tokenOrphanedV1 },
  revoked: { name: 'TokenRevoked', version: 1, schema: tokenRevokedV1 },
} as const;

/** Lives in the token log but is no token's event (its own stream, never folded). */
export const TOKEN_SALT_CREATED = {
  name: 'TokenSaltCreated',
  version: 1,
  schema: tokenSaltCreatedV1,
} as const;

export type TokenEvent = EventOf<typeof TOKEN_EVENT_TYPES>;

export const tokenStream = (accessor: string): string => `token/${accessor}`;
export const TOKEN_SALT_STREAM = 'token-salt';
/**
 * A former primary's token salt in the log of a cluster promoted away from it (the promotion fold,
 * docs/replication.md): its tokens were folded into this log too, and are looked up under it.
 */
export const inheritedTokenSaltStream = (fingerprint: string): string =>
  `${TOKEN_SALT_STREAM}/inherited/${fingerprint}`;

/** Token streams, keyed by accessor. */
export const TOKEN_LOG = defineAggregateLog({
  description: 'a token event',
  events: TOKEN_EVENT_TYPES,
  stream: tokenStream,
});

/** The salt's own one-event aggregate: in the same log, never folded into a token. */
export const TOKEN_SALT_LOG = defineAggregateLog({
  description: 'a token salt event',
  events: { created: TOKEN_SALT_CREATED },
  stream: () => TOKEN_SALT_STREAM,
});
