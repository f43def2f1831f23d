import type { AggregateLog, AppendedOf, EventTable, Projection } from './aggregate-log';
import type { AnyTrx, EventType, StoredEvent } from './event-store-types';

/**
 * How a secondary replays one aggregate's events: the aggregate's own log and projection (the
 * code its appends run, never a copy), and `keyOf`, which rebuilds the append's key from what
 * the log holds. `keyOf` may read the read model through `trx` (e.g. whether a row exists yet);
 * it returns null for events this cluster does not project (their rows stay in the log).
 */
export type ReplayKeyOf<T extends EventTable, K> = (
  trx: AnyTrx,
  stream: string,
  events: AppendedOf<T>[],
  ctx: ReplayContext,
) => Promise<K | null> | K | null;

/** What a replay knows beyond the log: the material the primary's service attached, by name. */
export interface ReplayContext {
  attachments: ReadonlyMap<string, Buffer>;
  /** the secondary's replication mode: what a performance secondary keeps local is not projected */
  mode: 'dr' | 'performance';
}

const NO_ATTACHMENTS: ReplayContext = { attachments: new Map(), mode: 'dr' };

/** One aggregate's replay, its types erased so a service lists all of its aggregates together. */
export interface Replayable {
  readonly description: string;
  readonly eventTypes: readonly EventType[];
  /** event types an append writes right after another of the same stream, projected together */
  readonly joinsAppend: ReadonlySet<string>;
  /** projects the events of one append (same stream, this aggregate's types) */
  run(trx: AnyTrx, events: readonly StoredEvent[], ctx: ReplayContext): Promise<void>;
}

export function replayable<T extends EventTable, K>(
  log: AggregateLog<T, K>,
  projection: Projection<T, unknown, K>,
  keyOf: ReplayKeyOf<T, K>,
  opts: { joinsAppend?: readonly T[keyof T]['name'][] } = {},
): Replayable {
  return {
    description: log.description,
    eventTypes: log.eventTypes,
    joinsAppend: new Set(opts.joinsAppend ?? []),
    async run(trx, events, ctx) {
      const first = events[0];
      if (!first) return;
      const typed: AppendedOf<T>[] = events.map((e) => ({
        // parsed by its version's schema and upcast, as the aggregate's reads do
        ...log.decode(e),
        stream: e.stream,
        streamVersion: e.streamVersion,
        recordedAt: e.recordedAt,
      }));
      const key = await keyOf(trx, first.stream, typed, ctx);
      if (key === null) return;
      await projection.apply(trx, typed, key);
    },
  };
}

/** Thrown for an event no registered aggregate owns: the service cannot replay its log. */
export class ReplayError extends Error {
  override name = 'ReplayError';
}

/**
 * A service's replayable aggregates. Events arrive in WAL order and are projected one at a time
 * (a projection folds its events, so one call per event ends in the same read model), except
 * the types an aggregate declares as joining an append: the log does not record where an
 * append ended, so a projection that wants two events together (kv v2: a version write and its
 * prune) names the second, and it joins the event before it in the same stream.
 */
export class ReplayRegistry {
  readonly #byType = new Map<string, Replayable>();

  constructor(items: readonly Replayable[]) {
    for (const item of items) {
      for (const t of item.eventTypes) {
        if (this.#byType.has(t.name)) throw new Error(`event ${t.name} is replayed by two aggregates`);
        this.#byType.set(t.name, item);
      }
    }
  }

  /** Projects `events` (WAL order, data as decrypted JSON) through their aggregates' projections. */
  async project(trx: AnyTrx, events: readonly StoredEvent[], ctx = NO_ATTACHMENTS): Promise<void> {
    let i = 0;
    while (i < events.length) {
      const first = events[i] as StoredEvent;
      let end = i + 1;
      while (end < events.length) {
        const next = events[end] as StoredEvent;
        if (
          next.stream !== first.stream ||
          next.streamVersion !== (events[end - 1] as StoredEvent).streamVersion + 1 ||
          this.#byType.get(next.type)?.joinsAppend.has(next.type) !== true
        )
          break;
        end += 1;
      }
      await this.#projectRun(trx, events.slice(i, end), ctx);
      i = end;
    }
  }

  async #projectRun(trx: AnyTrx, run: StoredEvent[], ctx: ReplayContext): Promise<void> {
    const first = run[0] as StoredEvent;
    const item = this.#byType.get(first.type);
    if (!item) throw new ReplayError(`no replayable aggregate owns event ${first.type}`);
    if (run.some((e) => this.#byType.get(e.type) !== item))
      throw new ReplayError(`events of two aggregates in one append of ${first.stream}`);
    await item.run(trx, run, ctx);
  }
}
