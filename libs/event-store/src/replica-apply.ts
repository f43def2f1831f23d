import type { Cipher } from '@coffer/barrier';
import type { ReplicaEvent } from '@coffer/contracts/replication';
import { EventLogRepository } from './event-log.repository';
import type { EventLogTable } from './event-log.table';
import { chainHash } from './hash';
import type { AnyDb, AnyTrx, LogHead, RawEvent, StoredEvent } from './event-store-types';

/**
 * A row of another cluster's log, as streamed: the stored row (ciphertext, WAL index, hash) and,
 * for the projections, its data decrypted by the replication service. `data` is undefined for a
 * placeholder (a row a performance primary filtered out: position and hash, no payload).
 */
export interface ReplicaRow extends RawEvent {
  data: unknown;
  filtered?: boolean;
}

/** Why a batch cannot be applied: the secondary must re-sync (diverged) or re-stream (gap, hash). */
export class ReplicaApplyError extends Error {
  constructor(
    readonly reason: 'gap' | 'hash_mismatch' | 'diverged',
    readonly wal: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'ReplicaApplyError';
  }
}

/** Runs the owning service's projections over replayed events, in the apply transaction. */
export type ReplicaProjector = (trx: AnyTrx, events: StoredEvent[]) => Promise<void>;

/**
 * Appends another cluster's log rows to this schema's event log verbatim (same WAL index, same
 * ciphertext, same hash chain) and projects them into the read models, in one transaction:
 * the log head is the secondary's position, so position, events and read models move together.
 *
 * Idempotent: rows at or below the local head were applied before (redelivery after a
 * reconnect) and are skipped, but the row at the head must carry the head's hash (otherwise
 * this log diverged from the primary's and only a re-sync helps). The next row must be head + 1
 * and continue the chain; a placeholder's hash is taken as sent (it has no payload to hash),
 * the next full row checks the chain again. Takes the WAL lock, so a local append cannot
 * interleave (nothing appends locally on a secondary; if something did, the next batch fails
 * with 'diverged').
 */
export async function applyReplicaRows(
  db: AnyDb,
  schema: string,
  rows: readonly ReplicaRow[],
  project: ReplicaProjector,
): Promise<LogHead> {
  const repo = new EventLogRepository(schema);
  return db.transaction().execute(async (trx) => {
    await repo.lockWal(trx);
    const head = await repo.head(trx);
    let { lastWal, hash } = head;
    const fresh: EventLogTable[] = [];
    const events: StoredEvent[] = [];
    for (const row of rows) {
      if (row.wal < lastWal) continue;
      if (row.wal === lastWal) {
        if (row.hash !== hash)
          throw new ReplicaApplyError('diverged', row.wal, `${schema}: the log diverged at wal ${row.wal}`);
        continue;
      }
      if (row.wal !== lastWal + 1)
        throw new ReplicaApplyError('gap', row.wal, `${schema}: expected wal ${lastWal + 1}, got ${row.wal}`);
      if (row.filtered !== true && chainHash(hash, row) !== row.hash)
        throw new ReplicaApplyError(
          'hash_mismatch',
          row.wal,
          `${schema}: hash chain broken at wal ${row.wal}`,
        );
      fresh.push({
        wal: row.wal,
        stream: row.stream,
        stream_version: row.streamVersion,
        type: row.type,
        schema_version: row.schemaVersion,
        payload: row.payload,
        recorded_at: row.recordedAt,
        hash: row.hash,
        // the primary's actors do not travel with its rows (they are beside the chain, not in it)
        actor_accessor: null,
        actor_entity_id: null,
        request_id: null,
        request_path: null,
      });
      if (row.filtered !== true) {
        const { payload: _payload, filtered: _filtered, ...event } = row;
        events.push(event);
      }
      lastWal = row.wal;
      hash = row.hash;
    }
    if (fresh.length === 0) return head;
    // projections first, as an append does: they see the read model before these events
    await project(trx, events);
    await repo.insert(trx, fresh);
    return { lastWal, hash };
  });
}

/** This schema's log head (the secondary's position in the primary's log of that schema). */
export function replicaHead(db: AnyDb, schema: string): Promise<LogHead> {
  return new EventLogRepository(schema).head(db);
}

/**
 * A log row's payload decrypted by `cipher` (the keyring of the cluster that wrote it), as the
 * replication service opens it for the secondary's projections. The AAD is EventStore's own
 * binding of a ciphertext to its place: `<schema>|<stream>|<stream version>|<type>`.
 */
export function openReplicaPayload(
  cipher: Cipher,
  schema: string,
  row: Pick<RawEvent, 'stream' | 'streamVersion' | 'type' | 'payload'>,
): unknown {
  const aad = Buffer.from(`${schema}|${row.stream}|${row.streamVersion}|${row.type}`, 'utf8');
  return JSON.parse(cipher.decrypt(row.payload, aad).toString('utf8')) as unknown;
}

/**
 * A row of the primary's log as the replication service ships it to a secondary's service: as
 * stored (payload, hash) plus its payload opened with the primary's keyring (the replication
 * service's own path: libs/replication; specs and tools build batches with this).
 */
export function openedReplicaEvent(cipher: Cipher, schema: string, row: RawEvent): ReplicaEvent {
  const { wal, stream, streamVersion, type, schemaVersion, hash } = row;
  const payload = row.payload.toString('base64');
  const data = openReplicaPayload(cipher, schema, row);
  return {
    wal,
    stream,
    streamVersion,
    type,
    schemaVersion,
    hash,
    payload,
    recordedAt: row.recordedAt.toISOString(),
    data,
  };
}
