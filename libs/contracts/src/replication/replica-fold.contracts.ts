import { z } from 'zod';
import { defineContract } from '../contract';
import { replicaEventSchema } from './replica-apply.contracts';
import { REPLICATION_MODES } from './replication-fields.schema';

/**
 * Promotion: a service that keeps the primary's rows beside its own log (core-sys, see
 * `logSchema` of the replica endpoint) folds what it replicated into its own log, so the promoted
 * cluster hands its own log on to the secondaries that follow it (docs/replication.md, "Promotion
 * fold"). The replication service reads the replica log, opens the payloads with the former
 * primary's keyring and sends them in WAL order; the service appends what it projected.
 */

/**
 * A row of the replica log, opened: what the fold appends again (at this cluster's versions);
 * `streamVersion` is the row's version in the former primary's stream.
 */
export const replicaFoldEventSchema = replicaEventSchema
  .pick({ wal: true, stream: true, streamVersion: true, type: true, schemaVersion: true })
  .extend({ data: z.unknown() });
export type ReplicaFoldEvent = z.infer<typeof replicaFoldEventSchema>;

const foldRequest = z.discriminatedUnion('op', [
  /** how far the replica log is folded: the next fold starts after it */
  z.object({ op: z.literal('position') }),
  /**
   * The next rows after the position, in WAL order, up to `through` (placeholders of rows a
   * performance primary filtered out are left out); idempotent: a retried batch appends nothing twice.
   */
  z.object({
    op: z.literal('fold'),
    /** the replication the replica log was applied in (what core-sys projected of it) */
    mode: z.enum(REPLICATION_MODES),
    events: z.array(replicaFoldEventSchema),
    through: z.number().int().nonnegative(),
  }),
]);
export type ReplicaFoldRequest = z.infer<typeof foldRequest>;

export const replicaFoldResponse = z.object({
  /** the last replica WAL folded (0: none) */
  foldedThrough: z.number().int().nonnegative(),
  /** events this call appended to the service's own log */
  appended: z.number().int().nonnegative(),
});
export type ReplicaFoldResponse = z.infer<typeof replicaFoldResponse>;

export const replicaFoldContract = (schema: string) =>
  defineContract(`${schema}.replication.fold`, foldRequest, replicaFoldResponse);

/** core-sys's, the one service that keeps the primary's rows beside its own log. */
export const coreSysReplicaFold = replicaFoldContract('core_sys');
