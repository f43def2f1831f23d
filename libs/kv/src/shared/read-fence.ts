import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { replicaLogSchemaOf } from '@coffer/contracts/replication';
import { KV_OPTIONS, type KvModuleOptions } from '../kv.di';
import { KvDb } from './kv.table';
import { Statement } from './statement';

/** What a cache of read-model rows must drop when events were committed. */
export interface FencedCache {
  /** drops the entries of these streams (each one a single secret, see isSecretStream) */
  invalidate(streams: readonly string[]): void;
  clear(): void;
  readonly size: number;
}

/** Beyond this many new events since the last check, the caches start over instead. */
const MAX_CHANGES = 1000;
/** How many past checks are remembered to judge a load that raced with one (see unchangedSince). */
const HISTORY = 64;
/** An idle replica checks this often, so rows of a destroyed secret do not stay in its memory. */
const IDLE_CHECK_MS = 1000;

/** What one check read: each log's committed head, and its streams after the check's start. */
interface HeadRow {
  head: number;
  streams: string[] | null;
  replica_head: number;
  replica_streams: string[] | null;
}

interface Checked {
  /** the check covered the changes with from < position <= to (see KvReadFence.applied) */
  from: number;
  to: number;
  /** the streams with events in that range; null: everything was dropped */
  streams: ReadonlySet<string> | null;
}

/**
 * A secret's own stream: kv v1/v2 keys (`kv/<mount>/<path>`) and cubbyhole secrets
 * (`cubbyhole/<token ref>/<mount>/<path>`). Any other stream (engine config, a mount's purge, a
 * token's whole cubbyhole `cubbyhole/<ref>`, token refs being base64url) may change many secrets
 * at once, so the caches start over.
 */
export function isSecretStream(stream: string): boolean {
  if (stream.startsWith('kv/')) return true;
  return stream.startsWith('cubbyhole/') && stream.indexOf('/', 'cubbyhole/'.length) !== -1;
}

/**
 * Keeps the kv read caches (Kv2Repository, FlatRepository) coherent across replicas.
 *
 * Every change of the read model is made by a projection inside an event-log append, and the
 * log's WAL numbers become visible in commit order without gaps (event-store.ts). So the caches
 * are exactly as current as the WAL number `applied` up to which their invalidations were
 * processed, and a reader makes them current before it reads (`sync`):
 *
 * 1. A check reads, in one statement, the committed head of the kv log and the streams of the
 *    events after `applied`, drops those streams' entries and moves `applied` to the head.
 * 2. A write is acknowledged only after its COMMIT. A read that arrives after the acknowledgement
 *    (on this or any other replica, through any gateway) waits for a check that *started* after
 *    it arrived (a check already running may have read the head too early: the reads of one
 *    event-loop turn share one check started at the end of that turn, several may run at once), so
 *    that check sees the write's WAL number and drops the written stream. The read then misses
 *    and loads the row from Postgres: no replica serves a value older than an acknowledged write,
 *    and a destroyed version or a deleted data key is gone from every cache for every read that
 *    follows the destroy's answer.
 * 3. A load that missed is stored only if no check since the one it followed dropped its stream
 *    (`unchangedSince`): its snapshot may predate a write such a check saw.
 *
 * On a replication secondary the primary's rows arrive in the replica log beside kv's own
 * (`kv_replica`, kv.replay.ts), projected into the same read model: a check reads that log's
 * head and streams in the same statement, and drops their entries likewise. The position the
 * caches are current to is then the sum of both heads: each grows with every commit to its log,
 * so the sum does too, and a check covers both logs' events between two sums.
 *
 * A check is one indexed query for all the reads of an event-loop turn,
 * replacing the per-read join of versions, keys and data keys. Idle replicas check every second,
 * so wrapped keys of destroyed data do not stay in the memory of a replica nobody reads from.
 *
 * Sole writer (dev mode, `soleWriter`): the database is PGlite inside this process, so the only
 * writer of the kv schema is this module, whose every append passes through KvEventStore and is
 * counted here when it starts and when it settles. While the count is what it was when the last
 * check started, no event can have been committed since, and a read skips the check: a read
 * served from memory costs no database round trip (no hop to PGlite's worker thread). A write's
 * answer follows its append's settling, so a read after it sees the count changed and checks.
 */
@Injectable()
export class KvReadFence implements OnModuleDestroy {
  private readonly caches = new Set<FencedCache>();
  /** the check the reads of the current event-loop turn wait for (starts at the end of the turn) */
  private pending: Promise<void> | undefined;
  private readonly headSql: Statement<HeadRow>;
  /** the own log's and the replica log's heads the caches are current to; -1 until the first check */
  private heads = { own: -1, replica: -1 };
  /** -1 until the first check: nothing can be cached before the head is known; then heads' sum */
  private applied = -1;
  private readonly history: Checked[] = [];
  private lastCheck = 0;
  private readonly soleWriter: boolean;
  /** kv appends started + settled in this process (sole writer) */
  private appends = 0;
  /** `appends` when the last successful check started; -1: none yet */
  private appendsChecked = -1;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: KvDb,
    @Inject(KV_OPTIONS) options: KvModuleOptions,
  ) {
    this.soleWriter = options.soleWriter === true;
    const replica = `"${replicaLogSchemaOf(db.schema).replace(/"/g, '""')}"`;
    this.headSql = new Statement(
      db.schema,
      `select h.head::int8 as head,
              case when h.head > $1::int8 and h.head - $1::int8 <= ${MAX_CHANGES}
                   then (select array_agg(distinct e.stream) from {schema}.event_log e
                          where e.wal > $1::int8 and e.wal <= h.head)
              end as streams,
              r.head::int8 as replica_head,
              case when r.head > $2::int8 and r.head - $2::int8 <= ${MAX_CHANGES}
                   then (select array_agg(distinct e.stream) from ${replica}.event_log e
                          where e.wal > $2::int8 and e.wal <= r.head)
              end as replica_streams
         from (select coalesce(max(wal), 0) as head from {schema}.event_log) h,
              (select coalesce(max(wal), 0) as head from ${replica}.event_log) r`,
    );
    this.timer = setInterval(() => this.idleCheck(), IDLE_CHECK_MS);
    this.timer.unref();
  }

  register(cache: FencedCache): void {
    this.caches.add(cache);
  }

  /**
   * Resolves with the WAL number the caches are current to, once a check that started after
   * this call has finished: every write acknowledged before the call is reflected.
   */
  async sync(): Promise<number> {
    if (!this.soleWriter || this.appends !== this.appendsChecked) await this.nextCheck();
    return this.applied;
  }

  /** KvEventStore: an append of this process starts, or settles (committed or not). */
  appendStartedOrSettled(): void {
    this.appends++;
  }

  /**
   * Whether a row loaded after the caches were current to `at` may be cached for `stream`: no
   * check since then saw an event of the stream (nor dropped everything), and the remembered
   * checks reach back to `at`.
   */
  unchangedSince(at: number, stream: string): boolean {
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

  onModuleDestroy(): void {
    clearInterval(this.timer);
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
   * Checks may overlap. Each covers the events after the `applied` it started from, so one that
   * finishes after a check that saw a later head has nothing to add; otherwise it drops its
   * streams, which cover everything after `applied` up to its head: the ranges applied are
   * contiguous, which `unchangedSince` relies on.
   */
  private async check(): Promise<void> {
    this.lastCheck = Date.now();
    const appends = this.appends;
    const from = this.applied;
    const start = this.heads;
    const row = await this.headSql.first(this.db.pool, [Math.max(start.own, 0), Math.max(start.replica, 0)]);
    const heads = { own: Number(row?.head ?? 0), replica: Number(row?.replica_head ?? 0) };
    this.appendsChecked = Math.max(this.appendsChecked, appends);
    // a log cleared (a secondary's wipe or re-sync) or the first check: nothing to vouch for
    const reset = from < 0 || heads.own < start.own || heads.replica < start.replica;
    const head = heads.own + heads.replica;
    if (!reset && head <= this.applied) return;
    const moved = (now: number, before: number, streams: string[] | null | undefined) =>
      now > before ? (streams ?? null) : [];
    const own = moved(heads.own, start.own, row?.streams);
    const replicated = moved(heads.replica, start.replica, row?.replica_streams);
    const streams = reset || own === null || replicated === null ? null : [...own, ...replicated];
    let dropped: Set<string> | null = null;
    if (streams !== null && streams.every(isSecretStream)) {
      dropped = new Set(streams);
      for (const cache of this.caches) cache.invalidate(streams);
    } else {
      for (const cache of this.caches) cache.clear();
    }
    this.history.push({ from, to: head, streams: dropped });
    if (this.history.length > HISTORY) this.history.shift();
    this.heads = heads;
    this.applied = head;
  }

  private idleCheck(): void {
    if (Date.now() - this.lastCheck < IDLE_CHECK_MS) return;
    if (![...this.caches].some((c) => c.size > 0)) return;
    // a failed check leaves nothing cached that it could not vouch for
    this.sync().catch(() => {
      for (const cache of this.caches) cache.clear();
    });
  }
}
