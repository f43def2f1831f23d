import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CompiledQuery } from 'kysely';
import { PkiDb } from './pki.table';
import { replicaLogSchemaOf } from '@coffer/contracts/replication';

/** A document as the read model holds it, opened; null: known not to exist. */
export type CachedDocument = { value: unknown; version: number } | null;

/** Beyond this many new events since the last check, the cache starts over instead of reading their streams. */
const MAX_CHANGES = 10_000;
/** How many past checks are remembered to judge a load that raced with one (see unchangedSince). */
const HISTORY = 64;
/** An idle replica checks this often, so a changed CA key does not stay in its memory. */
const IDLE_CHECK_MS = 1000;
/** Documents kept at most (roles of every mount); beyond, the first cached go first. */
const MAX_DOCUMENTS = 10_000;

/** Issued certificates' streams: they never change a document, and a sign that stores one appends one. */
const CERTIFICATE_STREAMS = 'pki-cert/%';

interface Checked {
  /** the check covered events with from < wal <= to */
  from: number;
  to: number;
  /** the document streams with events in that range; null: everything was dropped */
  streams: ReadonlySet<string> | null;
}

/** Document streams (`pki-<kind>/<mount>/<name>`, see documentStream) start so; any other (a mount's purge) may change many. */
const isDocumentStream = (stream: string): boolean =>
  /^pki-(issuer|role|crl-config|urls|crl-state)\//.test(stream);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * The opened pki documents (issuer, roles, settings) by stream, so issue and sign do not read and
 * decrypt them on every request. Coherent across replicas the way the kv read cache is
 * (libs/kv/src/shared/read-fence.ts): every document change is a projection inside an event-log
 * append, and WAL numbers become visible in commit order without gaps, so
 *
 * 1. a read waits for a check that *started after the read arrived* (the reads of one event-loop
 *    turn share one check): it reads the log's committed head and the streams of the events since
 *    the last check, in one statement, and drops those documents. A role written and acknowledged
 *    on another replica is therefore seen by the next request here;
 * 2. a load that missed is kept only if no check since the one it followed dropped its stream
 *    (its snapshot may predate a change such a check saw), nor did `invalidateAll`.
 *
 * A check is one indexed query per event-loop turn instead of a documents select and a barrier
 * decryption per document per request. Values are shared by every reader, frozen. The CA key is
 * in this memory as the parsed KeyObject anyway (CaStore); an idle replica still checks every
 * second so a replaced CA key does not linger here.
 */
@Injectable()
export class DocumentCache implements OnModuleDestroy {
  private readonly documents = new Map<string, CachedDocument>();
  private pending: Promise<void> | undefined;
  private readonly headSql: string;
  /** -1 until the first check: nothing can be cached before the head is known */
  private applied = -1;
  /** the replica log's head at the last check (-1: none yet) */
  private replicaApplied = -1;
  private readonly history: Checked[] = [];
  /** bumped by invalidateAll: loads begun before it are not kept */
  private generation = 0;
  private lastCheck = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly db: PkiDb) {
    const schema = `"${db.schema.replace(/"/g, '""')}"`;
    const replica = `"${replicaLogSchemaOf(db.schema).replace(/"/g, '""')}"`;
    // on a replication secondary the primary's documents arrive through the replica log beside
    // pki's own (pki.replay.ts): any move of its head drops everything, on every replica of pki
    // (the one that applied the batch also drops at once, PkiReadCaches)
    this.headSql = `select h.head::int8 as head,
              (select coalesce(max(wal), 0) from ${replica}.event_log)::int8 as replica_head,
              case when h.head > $1::int8 and h.head - $1::int8 <= ${MAX_CHANGES}
                   then coalesce((select array_agg(distinct e.stream) from ${schema}.event_log e
                          where e.wal > $1::int8 and e.wal <= h.head
                            and e.stream not like '${CERTIFICATE_STREAMS}'), '{}')
              end as streams
         from (select coalesce(max(wal), 0) as head from ${schema}.event_log) h`;
    this.timer = setInterval(() => this.idleCheck(), IDLE_CHECK_MS);
    this.timer.unref();
  }

  /**
   * The documents of `streams`, from memory where current, the others from `load` (one read for
   * all missing), which are kept when no change raced with it.
   */
  async read(
    streams: readonly string[],
    load: (missing: readonly string[]) => Promise<Map<string, CachedDocument>>,
  ): Promise<Map<string, CachedDocument>> {
    await this.nextCheck();
    const at = this.applied;
    const generation = this.generation;
    const out = new Map<string, CachedDocument>();
    const missing: string[] = [];
    for (const stream of streams) {
      const hit = this.documents.get(stream);
      if (hit === undefined) missing.push(stream);
      else out.set(stream, hit);
    }
    if (missing.length === 0) return out;
    const loaded = await load(missing);
    const keep = generation === this.generation;
    for (const stream of missing) {
      const doc = loaded.get(stream) ?? null;
      if (doc) deepFreeze(doc.value);
      out.set(stream, doc);
      if (keep && this.unchangedSince(at, stream)) this.store(stream, doc);
    }
    return out;
  }

  /** Drops everything, and keeps no load already under way (replicated rows were applied). */
  invalidateAll(): void {
    this.generation++;
    this.documents.clear();
  }

  get size(): number {
    return this.documents.size;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private store(stream: string, doc: CachedDocument): void {
    this.documents.set(stream, doc);
    while (this.documents.size > MAX_DOCUMENTS) {
      const oldest = this.documents.keys().next();
      if (oldest.done) break;
      this.documents.delete(oldest.value);
    }
  }

  /** As KvReadFence.unchangedSince: no check since `at` saw the stream, and the history reaches back to `at`. */
  private unchangedSince(at: number, stream: string): boolean {
    if (at < 0) return false;
    if (at === this.applied) return true;
    let reached = false;
    for (const checked of this.history) {
      if (checked.to <= at) continue;
      if (checked.from <= at) reached = true;
      if (checked.streams === null || checked.streams.has(stream)) return false;
    }
    return reached;
  }

  private nextCheck(): Promise<void> {
    this.pending ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.pending = undefined;
        this.check().then(resolve, reject);
      });
    });
    return this.pending;
  }

  /**
   * Checks may overlap; each covers the events after the `applied` it started from, so the ranges
   * applied stay contiguous (unchangedSince relies on it).
   */
  private async check(): Promise<void> {
    this.lastCheck = Date.now();
    const from = this.applied;
    const result = await this.db.pool.executeQuery<{
      head: number;
      replica_head: number;
      streams: string[] | null;
    }>(CompiledQuery.raw(this.headSql, [Math.max(from, 0)]));
    const row = result.rows[0];
    const replicaHead = Number(row?.replica_head ?? 0);
    if (replicaHead !== this.replicaApplied) {
      if (this.replicaApplied >= 0) this.invalidateAll();
      this.replicaApplied = replicaHead;
    }
    const head = row?.head ?? 0;
    const reset = head < from;
    if (!reset && head <= this.applied) return;
    const streams = from < 0 || reset || !row?.streams ? null : row.streams;
    let dropped: Set<string> | null = null;
    if (streams !== null && streams.every(isDocumentStream)) {
      dropped = new Set(streams);
      for (const stream of streams) this.documents.delete(stream);
    } else {
      this.documents.clear();
    }
    this.history.push({ from, to: head, streams: dropped });
    if (this.history.length > HISTORY) this.history.shift();
    this.applied = head;
  }

  private idleCheck(): void {
    if (Date.now() - this.lastCheck < IDLE_CHECK_MS || this.documents.size === 0) return;
    // a failed check leaves nothing cached that it could not vouch for
    this.nextCheck().catch(() => this.invalidateAll());
  }
}
