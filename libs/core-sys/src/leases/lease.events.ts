import { z } from 'zod';
import { defineAggregateLog, type EventOf } from '@coffer/event-store';

/**
 * Lease events, one stream per lease: `lease/<lease id>`. The engine's internal data travels
 * only in the (barrier-encrypted) log and, encrypted again, in the read model.
 */

export const leaseIssuedV1 = z.object({
  leaseId: z.string(),
  /** full request path the lease came from (the id's prefix) */
  path: z.string(),
  mountUuid: z.string(),
  mountAccessor: z.string(),
  mountPath: z.string(),
  mountType: z.string(),
  /** the service whose `<service>.lease.*` subjects renew and revoke it */
  service: z.string(),
  /** the token the lease was created with; revoking it revokes the lease */
  tokenAccessor: z.string().nullable(),
  renewable: z.boolean(),
  /** seconds granted at issue: what a renewal without increment grants again */
  ttl: z.number().int(),
  /** ms since epoch */
  issuedAt: z.number().int(),
  expiresAt: z.number().int(),
  /** the lease never lives past this, whatever the renewals (issue time + effective max TTL) */
  maxExpiresAt: z.number().int(),
  internal: z.record(z.string(), z.unknown()),
});
export type LeaseIssuedData = z.infer<typeof leaseIssuedV1>;

export const leaseRenewedV1 = z.object({ renewedAt: z.number().int(), expiresAt: z.number().int() });

/** Revocation brought forward (lazy revoke, token revoked): the manager revokes it at `expiresAt`. */
export const leaseRevocationQueuedV1 = z.object({ queuedAt: z.number().int(), expiresAt: z.number().int() });

export const leaseRevocationFailedV1 = z.object({
  failedAt: z.number().int(),
  attempts: z.number().int(),
  /** the engine's answer, without data */
  error: z.string(),
  nextAttemptAt: z.number().int(),
  /** given up: kept for sys/leases?type=irrevocable until revoke-force */
  irrevocable: z.boolean(),
});

export const leaseRevokedV1 = z.object({
  revokedAt: z.number().int(),
  reason: z.enum(['revoked', 'expired', 'forced']),
});

export const LEASE_EVENT_TYPES = {
  issued: { name: 'LeaseIssued', version: 1, schema: leaseIssuedV1 },
  renewed: { name: 'LeaseRenewed', version: 1, schema: leaseRenewedV1 },
  revocationQueued: { name: 'LeaseRevocationQueued', version: 1, schema: leaseRevocationQueuedV1 },
  revocationFailed: { name: 'LeaseRevocationFailed', version: 1, schema: leaseRevocationFailedV1 },
  revoked: { name: 'LeaseRevoked', version: 1, schema: leaseRevokedV1 },
} as const;

export type LeaseEvent = EventOf<typeof LEASE_EVENT_TYPES>;

export const leaseStream = (leaseId: string): string => `lease/${leaseId}`;

export const LEASE_LOG = defineAggregateLog({
  description: 'a lease event',
  events: LEASE_EVENT_TYPES,
  stream: (leaseId: string) => leaseStream(leaseId),
});
