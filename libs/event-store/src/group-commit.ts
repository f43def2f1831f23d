import { context, type Context } from '@opentelemetry/api';
import { inBatchSpan } from './batch-span';
import { ConcurrencyError } from './concurrency';
import { appendSeconds, batchAppends, batchEvents, commitSeconds } from './event-store.metrics';
import { chainRows, toAppended, versionConflicts, type EncodedEvent } from './batch';
import { EventLogRepository } from './event-log.repository';
import { STREAM_VERSION_CONSTRAINT } from './event-log.table';
import type { AppendLink } from './append-link';
import { DeferredProjections } from './deferred-projections';
import { isSingleSession } from './pglite-db';
import type {
  AnyDb,
  AnyTrx,
  AppendedEvent,
  AppendResult,
  EventActor,
  LogHead,
  ManyProjectionCall,
  StoredEvent,
} from './event-store-types';

/** One append() waiting for its batch. */
export interface PendingAppend {
  stream: string;
  events: readonly EncodedEvent[];
  expectedVersion: number | 'any';
  project: ((trx: AnyTrx, events: AppendedEvent[]) => Promise<unknown>) | undefined;
  projectMany?: ManyProjectionCall;
  /** see AppendOptions.link / after */
  link?: AppendLink;
  after?: AppendLink;
  /** the barrier ciphertext of one event's data, bound to its place (stream, version, type) */
  seal(event: AppendedEvent): Buffer;
  clock(): Date;
  /** who caused it: the caller of the request being served when append() was called */
  actor?: EventActor | undefined;
}

/** Appends per transaction at most; the queue beyond waits for the next batch. */
export const MAX_BATCH_APPENDS = 256;
/** Events per transaction at most (a batch always takes at least one append, however large). */
export const MAX_BATCH_EVENTS = 4096;

interface Queued extends PendingAppend {
  resolve(result: AppendResult<unknown>): void;
  reject(error: unknown): void;
  /** the request's trace context when it queued: the batch's span links to it */
  ctx: Context;
}

/** An append that passed its version check and projection, waiting for the WAL numbers. */
interface Accepted {
  appended: AppendedEvent[];
  payloads: Buffer[];
  actor: EventActor | undefined;
  version: number;
  projected: unknown;
}

type Outcome = { accepted: Accepted } | { error: unknown };

interface BatchResult {
  outcomes: Outcome[];
  /** per outcome: the stored events of an accepted append (same index) */
  stored: Map<number, StoredEvent[]>;
  lastWal: number;
}

/**
 * A projection failed in a batch run without savepoints: the transaction is abandoned and the
 * batch runs again with a savepoint around each projection.
 */
class UnguardedProjectionFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('a projection failed in an unguarded batch');
  }
}

function isStreamVersionConflict(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && e.constraint === STREAM_VERSION_CONSTRAINT;
}

/**
 * Group commit of one schema's appends in one process: append() queues, and a single drain loop
 * commits everything queued so far in one transaction, then the next batch. See
 * EventStore.append for the guarantees and why they hold.
 */
export class GroupCommitter {
  readonly #db: AnyDb;
  readonly #repo: EventLogRepository;
  readonly #queue: Queued[] = [];
  readonly #schema: string;
  /** one session (PGlite): nothing runs beside a batch, so it takes no locks (see #runBatch) */
  readonly #singleSession: boolean;
  #draining = false;

  constructor(db: AnyDb, schema: string) {
    this.#db = db;
    this.#schema = schema;
    this.#singleSession = isSingleSession(db);
    this.#repo = new EventLogRepository(schema);
  }

  submit(append: PendingAppend): Promise<AppendResult<unknown>> {
    const done = appendSeconds.startTimer({ schema: this.#schema });
    const link = append.link;
    const settled = new Promise<AppendResult<unknown>>((resolve, reject) => {
      // what the append failed with, unchanged (a DomainError, a driver error...)
      const fail: (error: unknown) => void = reject;
      // the link settles with the append, synchronously: an append staged after this one settled
      // (a later batch) sees its outcome
      this.#queue.push({
        ...append,
        resolve: (result) => {
          link?.moveTo('committed');
          resolve(result);
        },
        reject: (error) => {
          link?.moveTo('failed');
          fail(error);
        },
        ctx: context.active(),
      });
      if (this.#draining) return;
      this.#draining = true;
      // after the current I/O phase: appends started by the same burst of callbacks share a batch
      setImmediate(() => void this.#drain());
    });
    settled.then(
      () => done(),
      () => done(),
    );
    return settled;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#commitTraced(this.#takeBatch());
    } finally {
      this.#draining = false;
    }
  }

  /** One batch under its own span (linked to the requests it serves), measured. */
  async #commitTraced(batch: Queued[]): Promise<void> {
    const labels = { schema: this.#schema };
    batchAppends.observe(labels, batch.length);
    batchEvents.observe(
      labels,
      batch.reduce((n, item) => n + item.events.length, 0),
    );
    const done = commitSeconds.startTimer(labels);
    try {
      await inBatchSpan(
        `event-store commit ${this.#schema}`,
        batch.map((item) => item.ctx),
        { 'db.namespace': this.#schema },
        () => this.#commit(batch),
      );
    } finally {
      done();
    }
  }

  #takeBatch(): Queued[] {
    let events = 0;
    let n = 0;
    for (const item of this.#queue) {
      if (n === MAX_BATCH_APPENDS || (n > 0 && events + item.events.length > MAX_BATCH_EVENTS)) break;
      events += item.events.length;
      n += 1;
    }
    const batch = this.#queue.splice(0, n);
    for (const item of batch) item.link?.moveTo('batched');
    return batch;
  }

  /**
   * Commits one batch and settles every append in it; never throws. The batch first runs its
   * projections without savepoints (one round trip less per append, and projections rarely
   * fail); if one fails, the whole transaction is rolled back and the batch runs again guarded.
   */
  async #commit(batch: Queued[], guarded = false): Promise<void> {
    let result: BatchResult | undefined;
    try {
      await this.#db.transaction().execute(async (trx) => {
        result = await this.#runBatch(trx, batch, guarded);
      });
    } catch (error) {
      if (error instanceof UnguardedProjectionFailed) {
        // alone in its batch, the append simply fails as its own transaction would have
        if (batch.length === 1) (batch[0] as Queued).reject(error.cause);
        else await this.#commit(batch, true);
        return;
      }
      if (!result) {
        // Failed before COMMIT, so nothing of it is in the log: a statement outside every
        // savepoint failed (a deadlock with a writer that takes locks in another order, a
        // unique violation from a writer that bypassed the stream lock, a lost connection).
        // Retry each append in a transaction of its own, so one append's trouble is its own.
        if (batch.length > 1) {
          for (const item of batch) await this.#commit([item]);
        } else {
          for (const item of batch) item.reject(this.#soloError(item, error));
        }
        return;
      }
      // COMMIT itself failed: whether it took effect is unknown, so nothing is retried (a retry
      // could append twice); callers see the error as they did with one transaction each.
      result.outcomes.forEach((o, i) => {
        (batch[i] as Queued).reject('error' in o ? o.error : error);
      });
      return;
    }
    this.#settle(batch, result as BatchResult);
  }

  #soloError(item: Queued, error: unknown): unknown {
    return isStreamVersionConflict(error)
      ? new ConcurrencyError(item.stream, item.expectedVersion, undefined)
      : error;
  }

  #settle(batch: Queued[], result: BatchResult): void {
    result.outcomes.forEach((o, i) => {
      const item = batch[i] as Queued;
      if ('error' in o) {
        item.reject(o.error);
        return;
      }
      const events = result.stored.get(i) ?? [];
      const last = events[events.length - 1];
      item.resolve({
        events,
        version: o.accepted.version,
        lastWal: last ? last.wal : result.lastWal,
        projected: o.accepted.projected,
      });
    });
  }

  async #runBatch(trx: AnyTrx, batch: Queued[], guarded: boolean): Promise<BatchResult> {
    const streams = [...new Set(batch.map((item) => item.stream))];
    // One session (PGlite) runs one transaction at a time: no lock can be contended and nothing
    // commits between reading the head here and inserting below, so the versions and the head
    // come in one statement and the batch takes no lock (two round trips and a statement less).
    let known: { versions: Map<string, number>; head: LogHead } | undefined;
    if (this.#singleSession) known = await this.#repo.streamVersionsAndHead(trx, streams);
    else await this.#repo.lockStreams(trx, streams);
    // a new statement after the locks: its snapshot holds every commit to these streams
    const versions = known?.versions ?? (await this.#repo.streamVersions(trx, streams));
    const outcomes: Outcome[] = [];
    // links of this run's appends that will not commit: their followers in the batch fail too
    const refused = new Set<AppendLink>();
    // unguarded, neighbouring appends of one many-appends projection run as one statement
    const deferred = guarded ? undefined : new DeferredProjections();
    for (const item of batch) {
      if (deferred && !deferred.fits(item.projectMany)) await this.#flush(trx, deferred);
      const outcome = await this.#stage(trx, item, versions, refused, guarded ? 'guarded' : deferred);
      if ('error' in outcome && item.link) refused.add(item.link);
      outcomes.push(outcome);
    }
    if (deferred) await this.#flush(trx, deferred);

    const accepted: Array<{ index: number; entry: Accepted }> = [];
    outcomes.forEach((o, index) => {
      if ('accepted' in o && o.accepted.appended.length > 0) accepted.push({ index, entry: o.accepted });
    });
    if (accepted.length === 0) {
      return { outcomes, stored: new Map(), lastWal: (known?.head ?? (await this.#repo.head(trx))).lastWal };
    }

    // ---- critical section: the WAL lock is held until COMMIT ----
    let head = known?.head;
    if (!head) {
      await this.#repo.lockWal(trx);
      head = await this.#repo.head(trx);
    }
    const chained = chainRows(
      head,
      accepted.map((a) => a.entry),
    );
    await this.#repo.insert(trx, chained.rows);
    const stored = new Map(accepted.map((a, i) => [a.index, chained.stored[i] ?? []]));
    return { outcomes, stored, lastWal: chained.head.lastWal };
  }

  /**
   * Version check, encryption and projection of one append, against the versions of the batch so
   * far (`versions` moves on with every accepted append). A failure rejects only this append:
   * guarded, its projection ran inside a savepoint that is rolled back; unguarded, the batch is
   * abandoned and run again guarded.
   */
  async #flush(trx: AnyTrx, deferred: DeferredProjections): Promise<void> {
    try {
      await deferred.flush(trx);
    } catch (error) {
      throw new UnguardedProjectionFailed(error);
    }
  }

  async #stage(
    trx: AnyTrx,
    item: Queued,
    versions: Map<string, number>,
    refused: ReadonlySet<AppendLink>,
    mode: 'guarded' | DeferredProjections | undefined,
  ): Promise<Outcome> {
    const guarded = mode === 'guarded';
    const current = versions.get(item.stream) ?? 0;
    // decided on an append that will not commit: decided on a state that never existed
    const orphan = item.after !== undefined && (item.after.state === 'failed' || refused.has(item.after));
    if (orphan || versionConflicts(item.expectedVersion, current)) {
      return { error: new ConcurrencyError(item.stream, item.expectedVersion, current) };
    }
    let appended: AppendedEvent[];
    let payloads: Buffer[];
    try {
      appended = toAppended(item.stream, item.events, current, item.clock());
      payloads = appended.map((e) => item.seal(e));
    } catch (error) {
      return { error };
    }
    const version = current + appended.length;
    if (item.projectMany && mode instanceof DeferredProjections) {
      const accepted: Accepted = { appended, payloads, actor: item.actor, version, projected: undefined };
      mode.add(item.projectMany, appended, accepted);
      versions.set(item.stream, version);
      return { accepted };
    }
    let projected: unknown;
    if (item.project && !guarded) {
      try {
        projected = await item.project(trx, appended);
      } catch (error) {
        throw new UnguardedProjectionFailed(error);
      }
    } else if (item.project) {
      await this.#repo.savepoint(trx);
      try {
        projected = await item.project(trx, appended);
      } catch (error) {
        await this.#repo.rollbackToSavepoint(trx);
        return { error };
      }
      await this.#repo.releaseSavepoint(trx);
    }
    versions.set(item.stream, version);
    return { accepted: { appended, payloads, actor: item.actor, version, projected } };
  }
}

const committers = new WeakMap<AnyDb, Map<string, GroupCommitter>>();

/**
 * The committer of a schema on a connection pool: EventStore instances of one service (core-sys
 * has one per aggregate) share it, so their appends share batches instead of competing for the
 * WAL lock.
 */
export function committerFor(db: AnyDb, schema: string): GroupCommitter {
  let bySchema = committers.get(db);
  if (!bySchema) committers.set(db, (bySchema = new Map<string, GroupCommitter>()));
  let committer = bySchema.get(schema);
  if (!committer) bySchema.set(schema, (committer = new GroupCommitter(db, schema)));
  return committer;
}
