import { sql } from 'kysely';
import type { EventStore } from './event-store';
import type { AnyDb, AnyTrx, StoredEvent } from './event-store-types';
import { EVENT_LOG_TABLE } from './event-log.table';
import type { ReplayContext, ReplayRegistry } from './replay';
import { truncateSchema } from './replica-endpoint';

/** Own events read per statement: a secondary's own log may hold every certificate it issued. */
const REBUILD_BATCH = 1_000;

/**
 * The cluster's own events are all its own: projected whatever a performance secondary leaves
 * local when they come from a primary (the replay's 'dr' rules project every event).
 */
const OWN_EVENTS: ReplayContext = { attachments: new Map(), mode: 'dr' };

export interface OwnLogRebuild {
  db: AnyDb;
  /** the service's schema: its own log and its read models */
  schema: string;
  /** the replica log beside it, with the promotion fold's progress */
  replicaSchema: string;
  /** the service's store: reads (and decrypts, under this cluster's barrier) its own log */
  store: Pick<EventStore, 'readFrom'>;
  /** the service's replay: the projections its own appends run */
  replay: ReplayRegistry;
  /**
   * The mount a stream belongs to, for a service that purges a disabled mount's rows outside its
   * log (on the `mountDisabled` broadcast): see rebuildFromOwnLog.
   */
  mountOf?: (stream: string) => string | undefined;
  /** read-model tables the rebuild leaves in place (see RebuildKept) */
  kept?: RebuildKept;
}

/**
 * Read-model tables holding material the log lacks (kv's data keys: crypto-shredding keeps them
 * out of the log) that a rebuild leaves as they are, so the own events projected again find their
 * material there: the engine's projections must then take a row already present (an insert that
 * finds the same key keeps it). After the projection, in the same transaction, `prune` drops the
 * rows no rebuilt row needs (the primary's, which come again with its rows; any a re-projected
 * event put back only for a later event of the log to shred again).
 */
export interface RebuildKept {
  tables: readonly string[];
  prune: (trx: AnyTrx) => Promise<void>;
}

/**
 * A re-sync of a service keeping a replica log beside its own: the primary's rows go (the replica
 * log and the fold's progress), the read models are cleared and rebuilt from the service's own log
 * through its replay's projections, in one transaction, so what the cluster wrote itself (a
 * performance secondary's certificates, OTPs, credentials' records, codes) is served again as it
 * was, and the primary's rows arrive again on the next connection. The truncation locks the read
 * models first: an own append projecting meanwhile waits and lands on the rebuilt rows, its event
 * read by neither. Returns how many own events were projected.
 *
 * A mount purged on the `mountDisabled` broadcast leaves its events in the log and no row: with
 * `mountOf`, the events of a mount holding no row before the wipe are not projected again (had the
 * mount stayed, its events would end in no row either).
 */
export async function rebuildFromOwnLog(r: OwnLogRebuild): Promise<number> {
  return r.db.transaction().execute(async (trx) => {
    const held = r.mountOf ? await mountsHeld(trx, r.schema) : undefined;
    await truncateSchema(trx, r.replicaSchema);
    await truncateSchema(trx, r.schema, [EVENT_LOG_TABLE, ...(r.kept?.tables ?? [])]);
    const mountOf = r.mountOf;
    const keep = (e: StoredEvent): boolean => {
      const mount = mountOf?.(e.stream);
      return held === undefined || mount === undefined || held.has(mount);
    };
    let after = 0;
    let projected = 0;
    // the tail of a full batch in the last event's stream waits for the next one: an append's
    // events are consecutive in one stream, and the replay joins some (see ReplayRegistry)
    let carried: StoredEvent[] = [];
    for (;;) {
      const read = await r.store.readFrom(after, REBUILD_BATCH, trx);
      const last = read.at(-1);
      const events = [...carried, ...read];
      carried = last && read.length === REBUILD_BATCH ? tailOfStream(events) : [];
      const now = events.slice(0, events.length - carried.length).filter(keep);
      await r.replay.project(trx, now, OWN_EVENTS);
      projected += now.length;
      if (!last || read.length < REBUILD_BATCH) break;
      after = last.wal;
    }
    await r.kept?.prune(trx);
    return projected;
  });
}

/** The trailing events of `events` in the last one's stream, at consecutive versions. */
function tailOfStream(events: readonly StoredEvent[]): StoredEvent[] {
  let start = events.length - 1;
  const last = events[start];
  if (!last) return [];
  while (start > 0) {
    const before = events[start - 1] as StoredEvent;
    const at = events[start] as StoredEvent;
    if (before.stream !== last.stream || before.streamVersion !== at.streamVersion - 1) break;
    start -= 1;
  }
  // a batch of one stream only: nothing is projected until the stream changes or the log ends
  return events.slice(start);
}

/** The mounts with a row in any table of `schema` (tables with a `mount_uuid` column). */
async function mountsHeld(trx: AnyTrx, schema: string): Promise<Set<string>> {
  const found = await sql<{ name: string }>`
    select c.table_name as name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = ${schema} and c.column_name = 'mount_uuid' and t.table_type = 'BASE TABLE'
     order by c.table_name`.execute(trx);
  if (found.rows.length === 0) return new Set();
  const union = sql.join(
    found.rows.map((t) => sql`select mount_uuid from ${sql.table(`${schema}.${t.name}`)}`),
    sql` union `,
  );
  const { rows } = await sql<{ mount_uuid: string }>`${union}`.execute(trx);
  return new Set(rows.map((row) => row.mount_uuid));
}
