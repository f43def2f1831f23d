import { z } from 'zod';
import { defineContract } from '../contract';
import { REPLICATION_MODES } from './replication-fields.schema';

/**
 * Contracts between the replication service and the services whose logs it replicates. Each
 * service that replays its events (its own projections over another cluster's log) serves them
 * under its schema's name, so the replication service reaches it without knowing it:
 * `<schema>.replication.apply` on a secondary, `<schema>.replication.export` on a primary.
 */

/** One row of the primary's log as the secondary's service applies it. */
export const replicaEventSchema = z.object({
  wal: z.number().int().positive(),
  stream: z.string().min(1),
  streamVersion: z.number().int().positive(),
  type: z.string().min(1),
  schemaVersion: z.number().int(),
  /** base64 of the barrier ciphertext as the primary stored it (hashed by the chain) */
  payload: z.string(),
  recordedAt: z.iso.datetime({ offset: true }),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** the payload decrypted by the replication service (with the primary's keyring); absent when filtered */
  data: z.unknown().optional(),
  /** a row a performance primary filtered out: placeholder, no payload, not projected */
  filtered: z.boolean().optional(),
});
export type ReplicaEvent = z.infer<typeof replicaEventSchema>;

const headSchema = z.object({ lastWal: z.number().int().nonnegative(), hash: z.string() });

/**
 * Which replication the secondary is in: a service that keeps some state local on a performance
 * secondary (core-sys: tokens, leases, local mounts) projects less there. Absent: DR.
 */
const modeField = z.enum(REPLICATION_MODES).optional();

/** What a wipe clears: everything (secondary/enable) or only the primary's data (a re-sync). */
export const REPLICA_WIPE_SCOPES = ['all', 'replicated'] as const;
export type ReplicaWipeScope = (typeof REPLICA_WIPE_SCOPES)[number];

const applyRequest = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('apply'),
    mode: modeField,
    events: z.array(replicaEventSchema),
    /** material the primary's service attached (see export), decrypted: name -> base64 */
    attachments: z.record(z.string(), z.string()).default({}),
  }),
  /**
   * Clears what the service holds of the primary. `all` (secondary/enable, and the default):
   * Vault wipes a new secondary, so an engine drops its own data too. `replicated` (a re-sync of
   * a log that diverged from the primary's): only what came from the primary goes, the data the
   * cluster wrote itself stays (see the service's wipe for what each keeps).
   */
  z.object({ op: z.literal('wipe'), mode: modeField, scope: z.enum(REPLICA_WIPE_SCOPES).optional() }),
  /**
   * The head of the log the primary's rows go to: the secondary's position in the primary's log
   * of this schema. `log: 'own'`: the service's own log instead, where it differs (a service
   * keeping a replica log beside it): a primary's position after its own write.
   */
  z.object({ op: z.literal('head'), log: z.enum(['replica', 'own']).optional() }),
]);

export type ReplicaApplyRequest = z.infer<typeof applyRequest>;

export const replicaApplyContract = (schema: string) =>
  defineContract(`${schema}.replication.apply`, applyRequest, headSchema);

/** A barrier-encrypted blob a service attaches to its rows: name, its AAD, the ciphertext (base64). */
export const replicaAttachmentSchema = z.object({ name: z.string(), aad: z.string(), sealed: z.string() });
export type ReplicaAttachment = z.infer<typeof replicaAttachmentSchema>;

/** An event of the primary's log as the export reads it (opened by the replication service). */
export const replicaExportEventSchema = z.object({
  wal: z.number().int().positive(),
  type: z.string(),
  schemaVersion: z.number().int(),
  data: z.unknown(),
});
export type ReplicaExportEvent = z.infer<typeof replicaExportEventSchema>;

/**
 * On the primary: what these events need beyond the log on a secondary (key material kept only
 * in read models, e.g. kv's data keys), still barrier-encrypted as stored. The replication
 * service opens the payloads (the log may hold rows a former primary's keyring wrote).
 */
export const replicaExportContract = (schema: string) =>
  defineContract(
    `${schema}.replication.export`,
    z.object({ events: z.array(replicaExportEventSchema) }),
    z.object({ attachments: z.array(replicaAttachmentSchema) }),
  );
