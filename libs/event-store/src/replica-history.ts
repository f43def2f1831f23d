import { sql } from 'kysely';
import type { Cipher } from '@coffer/barrier';
import {
  REPLICA_OPEN_MAX_ROWS,
  replicaLogSchemaOf,
  replicaOpenable,
  replicaOpenContract,
  type ReplicaOpenRequest,
  type ReplicaOpenResponse,
} from '@coffer/contracts/replication';
import type { Transport } from '@coffer/transport';
import { EventLogRepository } from './event-log.repository';
import type { AnyDb, RawEvent, StoredEvent } from './event-store-types';
import { openReplicaPayload } from './replica-apply';

const OPEN_TIMEOUT_MS = 10_000;
/**
 * Sealed payload bytes per open request: an opened payload is about its sealed size, and a kv
 * event carries a whole secret's ciphertext (up to the transport's 1 MiB), so 64 rows of them
 * would not fit one answer.
 */
const OPEN_MAX_BYTES = 256 * 1024;

/** A row of a replica log that holds an event (a placeholder of a filtered row has no payload). */
const hasPayload = (row: RawEvent): boolean => row.payload.length > 0;

/**
 * The replication service's side of `replication.replica.open`: the rows of `<schema>_replica` at
 * `wals`, read from that log here (never a ciphertext the asker hands in) and opened with `opener`
 * (the keyrings of the clusters the log came from). Placeholders, absent rows and rows of streams
 * not `replicaOpenable` are left out.
 */
export async function openReplicaRows(
  db: AnyDb,
  req: ReplicaOpenRequest,
  opener: Cipher,
): Promise<ReplicaOpenResponse> {
  const rows = await new EventLogRepository(replicaLogSchemaOf(req.schema)).atWals(db, req.wals);
  return {
    events: rows
      .filter((row) => hasPayload(row) && replicaOpenable(req.schema, row.stream))
      .map((row) => ({ wal: row.wal, data: openReplicaPayload(opener, req.schema, row) })),
  };
}

/**
 * A service's events in history order: its replica log's (the primary's, with their original
 * times) and its own log's, each already in stream order, merged by the time they were recorded
 * (on a tie the replicated one first: the own log's copy or successor came after it).
 */
export function mergeByTime(replicated: readonly StoredEvent[], own: readonly StoredEvent[]): StoredEvent[] {
  const out: StoredEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < replicated.length || j < own.length) {
    const r = replicated[i];
    const o = own[j];
    if (r && (!o || r.recordedAt.getTime() <= o.recordedAt.getTime())) {
      out.push(r);
      i += 1;
    } else if (o) {
      out.push(o);
      j += 1;
    }
  }
  return out;
}

/**
 * The replica log of a service that keeps one (`<schema>_replica`), read for its history: on a
 * secondary the primary's rows are there, verbatim, sealed by the primary's barrier, so their
 * payloads are opened by the replication service (`replication.replica.open`), asked only when
 * there is a row to open (a primary's replica log is empty: no request). The promotion fold's
 * progress (`replica_folded`) tells which events of the own log are the fold's copies.
 */
export class ReplicaHistory {
  readonly #repo: EventLogRepository;
  readonly #folded: string;
  readonly #transport: Pick<Transport, 'request'>;

  constructor(
    private readonly db: AnyDb,
    private readonly schema: string,
    opts: { transport: Pick<Transport, 'request'>; foldedTable?: string },
    private readonly decode: (row: RawEvent, data: unknown) => StoredEvent,
  ) {
    const replicaSchema = replicaLogSchemaOf(schema);
    this.#repo = new EventLogRepository(replicaSchema);
    this.#folded = opts.foldedTable ?? `${replicaSchema}.replica_folded`;
    this.#transport = opts.transport;
  }

  /** The replicated events of `stream` recorded at or before `at`, in stream order. */
  async streamAt(stream: string, at: Date): Promise<StoredEvent[]> {
    const rows = await this.#repo.readStream(this.db, stream, 1);
    return this.open(rows.filter((r) => hasPayload(r) && r.recordedAt.getTime() <= at.getTime()));
  }

  /** The last replicated event recorded at or before `at` of each stream named `prefix...`. */
  async lastOfPrefixAt(prefix: string, at: Date): Promise<StoredEvent[]> {
    const rows = await this.#repo.lastOfPrefixAt(this.db, prefix, at);
    return this.open(rows.filter(hasPayload));
  }

  /**
   * The former primary's version each stream named `prefix...` was folded up to at a promotion
   * (no entry: never folded): the own log's events of the stream up to it are the fold's copies.
   */
  async foldedUnder(prefix: string): Promise<Map<string, number>> {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await sql<{ stream: string; version: number }>`
      select stream, version from ${sql.table(this.#folded)} where stream like ${like}`.execute(this.db);
    return new Map(rows.map((r) => [r.stream, Number(r.version)]));
  }

  /** The rows' events, opened by the replication service in requests of a bounded size. */
  private async open(rows: readonly RawEvent[]): Promise<StoredEvent[]> {
    const data = new Map<number, unknown>();
    for (const batch of openBatches(rows)) {
      const wals = batch.map((r) => r.wal);
      const answer = await this.#transport.request(
        replicaOpenContract,
        { schema: this.schema, wals },
        { timeoutMs: OPEN_TIMEOUT_MS },
      );
      for (const e of answer.events) data.set(e.wal, e.data);
    }
    // a row the answer lacks (wiped meanwhile by a re-sync) is no longer history here
    return rows.filter((r) => data.has(r.wal)).map((r) => this.decode(r, data.get(r.wal)));
  }
}

/**
 * `rows` cut into open requests, in order: at most REPLICA_OPEN_MAX_ROWS rows and `maxBytes` of
 * sealed payload each (a larger row goes alone), so an answer stays under the transport's limit.
 */
export function openBatches(
  rows: readonly RawEvent[],
  maxBytes = OPEN_MAX_BYTES,
  maxRows = REPLICA_OPEN_MAX_ROWS,
): RawEvent[][] {
  const batches: RawEvent[][] = [];
  let batch: RawEvent[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (batch.length > 0 && (batch.length >= maxRows || bytes + row.payload.length > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += row.payload.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
