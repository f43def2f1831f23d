import { z } from 'zod';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';
import { documentStream, type DocumentAppend } from '../shared/document.projection';

/**
 * Vault's `unified-revocation/` and `cross-revocation-queue/` (replicated storage): one document
 * per serial, written on the primary only (a performance secondary forwards them) and streamed
 * to every secondary, each event holding the whole document.
 */
export const unifiedRevocationRecorded = defineEvent(
  'UnifiedRevocationRecorded',
  1,
  z.object({
    serial: z.string(),
    revokedAtMs: z.number(),
    /** hex key id of the CA that issued it: only that CA's unified CRL lists it */
    issuerKeyId: z.string(),
  }),
);
export const crossRevocationRequested = defineEvent(
  'CrossRevocationRequested',
  1,
  z.object({ serial: z.string(), requestedAtMs: z.number() }),
);

export const UNIFIED_REVOCATION_EVENT_TYPES = {
  unifiedRevocationRecorded,
  crossRevocationRequested,
} as const;

export const UNIFIED_REVOCATION_LOG = defineAggregateLog({
  description: 'a pki unified revocation event',
  events: UNIFIED_REVOCATION_EVENT_TYPES,
  stream: (a: DocumentAppend) => documentStream(a),
});

export type UnifiedRevocation = z.infer<typeof unifiedRevocationRecorded.schema>;
export type CrossRevocationRequest = z.infer<typeof crossRevocationRequested.schema>;
