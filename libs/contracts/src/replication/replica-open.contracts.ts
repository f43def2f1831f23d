import { z } from 'zod';
import { defineContract } from '../contract';
import { REPLICATED_SERVICES } from './replicated-services';

/**
 * History on a secondary (docs/replication.md, "History on a secondary"): the primary's rows of a
 * service that keeps them beside its own log (`<schema>_replica.event_log`) are sealed by the
 * primary's barrier, whose keyrings only the replication service holds. A service rebuilding one
 * of its paths at an instant names the rows of its replica log it needs, by WAL index; the
 * replication service reads those rows from that log itself (it never opens a ciphertext it is
 * handed) and answers their payloads, opened, over the internal transport only (no gateway route
 * reaches this subject), as the replica apply already ships them to the service.
 */

/** The replicated services (each keeps a replica log): the only logs this opens rows of. */
const REPLICA_LOG_SCHEMAS: readonly string[] = REPLICATED_SERVICES.map((s) => s.schema);

/**
 * Which rows a history may have opened: an engine's whole replica log (its history reads any of
 * its streams), but of core-sys's only the mount table (`mounts/table`, the mount of an engine
 * path at an instant): its tokens, wrapped responses and identity stay shut. Others are left out.
 */
export function replicaOpenable(schema: string, stream: string): boolean {
  return schema !== 'core_sys' || stream === 'mounts/table';
}

/** Rows per request: an answer stays well under the transport's 1 MiB (a pki CA event is a few KiB). */
export const REPLICA_OPEN_MAX_ROWS = 64;

const openRequest = z.strictObject({
  /** the service's schema; its replica log is `<schema>_replica` */
  schema: z.string().refine((s) => REPLICA_LOG_SCHEMAS.includes(s), 'not a service with a replica log'),
  wals: z.array(z.number().int().positive()).min(1).max(REPLICA_OPEN_MAX_ROWS),
});
export type ReplicaOpenRequest = z.infer<typeof openRequest>;

/** Only each row's WAL index and opened payload: the rest of the row the service read itself. */
const openResponse = z.strictObject({
  events: z.array(z.strictObject({ wal: z.number().int().positive(), data: z.unknown() })),
});
export type ReplicaOpenResponse = z.infer<typeof openResponse>;

/** Served by the replication service (root of the cluster's keyrings), asked by the services only. */
export const replicaOpenContract = defineContract('replication.replica.open', openRequest, openResponse);
