import { z } from 'zod';
import { defineContract } from '../contract';
import { engineRequestSchema } from '../engine-messages';

/**
 * A write a performance secondary forwards to its primary (Vault's request forwarding). The
 * secondary's gateway authorised it with its own token store and ACLs; what travels is the
 * engine request and the caller it resolved (the encoded caller context: policies, entity,
 * namespace), never the token. The secondary's replication service carries it over the
 * TLS-PSK cluster connection; the primary's replication service runs it on its own engine.
 */
export const forwardedWriteSchema = z.object({
  /** the engine contract's subject the secondary's route resolved to (kv's only) */
  subject: z.string().min(1),
  /** the replayed service that owns it ("kv"), whose log position comes back */
  service: z.string().min(1),
  request: engineRequestSchema,
  /** the encoded caller context (x-coffer-* headers), as the engine reads it */
  context: z.record(z.string(), z.string()),
});
export type ForwardedWrite = z.infer<typeof forwardedWriteSchema>;

export const forwardedAnswerSchema = z.object({
  /** the primary's engine answer, as its engine sent it */
  answer: z.record(z.string(), z.unknown()),
  /** the primary's log position at or after the write (X-Service-Index) */
  index: z.object({ source: z.string(), wal: z.number().int().nonnegative() }),
});
export type ForwardedAnswer = z.infer<typeof forwardedAnswerSchema>;

/** gateway -> this cluster's replication service: forward a write to the performance primary. */
export const replicationForward = defineContract(
  'replication.forward',
  forwardedWriteSchema,
  forwardedAnswerSchema,
);
