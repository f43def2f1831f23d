// Pure steps of a group-commit batch (see group-commit.ts): numbering events within their stream
// and laying the accepted appends out as log rows with WAL numbers and the hash chain.
import type { EventLogTable } from './event-log.table';
import { chainHash } from './hash';
import type { AppendedEvent, EventActor, LogHead, StoredEvent } from './event-store-types';

/** An event validated against the registry, waiting for its stream position. */
export interface EncodedEvent {
  type: string;
  /** schema version of the event type */
  version: number;
  data: unknown;
}

/** True when `expected` does not allow appending to a stream at version `current`. */
export function versionConflicts(expected: number | 'any', current: number): boolean {
  return expected !== 'any' && expected !== current;
}

/** The events of one append as they follow a stream's `current` version. */
export function toAppended(
  stream: string,
  events: readonly EncodedEvent[],
  current: number,
  recordedAt: Date,
): AppendedEvent[] {
  return events.map((e, i) => ({
    stream,
    streamVersion: current + i + 1,
    type: e.type,
    schemaVersion: e.version,
    data: e.data,
    recordedAt,
  }));
}

/** One accepted append of a batch: its events and their ciphertexts (same order). */
export interface ChainInput {
  appended: readonly AppendedEvent[];
  payloads: readonly Buffer[];
  /** who caused the append (stored beside each of its rows) */
  actor?: EventActor | undefined;
}

export interface ChainedBatch {
  /** every row of the batch, wal head.lastWal+1.. in input order */
  rows: EventLogTable[];
  /** per input, its events with their wal and hash */
  stored: StoredEvent[][];
  /** the log's head once the rows are in */
  head: LogHead;
}

/**
 * Numbers the inputs' events consecutively after `head`, in input order, each hash chained on the
 * one before (the first on head.hash): the batch continues the log exactly as the same appends
 * committed one by one in that order would have.
 */
export function chainRows(head: LogHead, inputs: readonly ChainInput[]): ChainedBatch {
  const rows: EventLogTable[] = [];
  let wal = head.lastWal;
  let hash = head.hash;
  const stored = inputs.map(({ appended, payloads, actor }) =>
    appended.map((e, i) => {
      const payload = payloads[i];
      if (!payload) throw new Error(`event ${i} of ${e.stream} has no payload`);
      wal += 1;
      hash = chainHash(hash, { ...e, wal, payload });
      rows.push({
        wal,
        stream: e.stream,
        stream_version: e.streamVersion,
        type: e.type,
        schema_version: e.schemaVersion,
        payload,
        recorded_at: e.recordedAt,
        hash,
        actor_accessor: actor?.accessor ?? null,
        actor_entity_id: actor?.entityId ?? null,
        request_id: actor?.requestId ?? null,
        request_path: actor?.path ?? null,
      });
      return { ...e, wal, hash };
    }),
  );
  return { rows, stored, head: { lastWal: wal, hash } };
}
