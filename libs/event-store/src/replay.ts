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

/**
 * The keys of several appends of one aggregate at once (in WAL order, one per append, null for
 * those not projected), read with one query instead of one per append. Computed before any of
 * them is projected, so it must account for what the earlier appends of the list change (e.g. a
 * row created by the first of two writes of the same key).
 */
export type ReplayKeysOf<T extends EventTable, K> = (
  trx: AnyTrx,
  appends: ReadonlyArray<{ stream: string; events: AppendedOf<T>[] }>,
  ctx: ReplayContext,
) => Promise<Array<K | null>>;

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
  /**
   * Optional: projects consecutive appends of this aggregate together (keys read at once, version
   * writes in one statement), ending in the read model `run` one by one leaves. A wrapper that
   * changes `run` must drop or wrap this too.
   */
  runMany?(trx: AnyTrx, appends: ReadonlyArray<readonly StoredEvent[]>, ctx: ReplayContext): Promise<void>;
}

export function replayable<T extends EventTable, K>(
  log: AggregateLog<T, K>,
  projection: Projection<T, unknown, K>,
  keyOf: ReplayKeyOf<T, K>,
  opts: { joinsAppend?: readonly T[keyof T]['name'][]; keysOf?: ReplayKeysOf<T, K> } = {},
): Replayable {
  // parsed by its version's schema and upcast, as the aggregate's reads do
  const decode = (events: readonly StoredEvent[]): AppendedOf<T>[] =>
    events.map((e) => ({
      ...log.decode(e),
      stream: e.stream,
      streamVersion: e.streamVersion,
      recordedAt: e.recordedAt,
    }));
  const keysOf = opts.keysOf;
  return {
    description: log.description,
    eventTypes: log.eventTypes,
    joinsAppend: new Set(opts.joinsAppend ?? []),
    async run(trx, events, ctx) {
      const first = events[0];
      if (!first) return;
      const typed = decode(events);
      const key = await keyOf(trx, first.stream, typed, ctx);
      if (key === null) return;
      await projection.apply(trx, typed, key);
    },
    ...(keysOf && {
      async runMany(trx: AnyTrx, appends: ReadonlyArray<readonly StoredEvent[]>, ctx: ReplayContext) {
        const typed = appends.flatMap((events) => {
          const first = events[0];
          return first ? [{ stream: first.stream, events: decode(events) }] : [];
        });
        const keys = await keysOf(trx, typed, ctx);
        await projectInOrder(trx, projection, typed, keys);
      },
    }),
  };
}

/**
 * Applies appends in order: neighbouring ones the projection's applyMany takes go in one call,
 * any other append first flushes them, so every append sees the read model its predecessors left.
 */
async function projectInOrder<T extends EventTable, K>(
  trx: AnyTrx,
  projection: Projection<T, unknown, K>,
  appends: ReadonlyArray<{ events: AppendedOf<T>[] }>,
  keys: ReadonlyArray<K | null>,
): Promise<void> {
  let group: Array<{ events: AppendedOf<T>[]; key: K }> = [];
  const flush = async () => {
    if (group.length === 0) return;
    const many = group;
    group = [];
    if (many.length === 1 || !projection.applyMany) {
      for (const a of many) await projection.apply(trx, a.events, a.key);
    } else {
      await projection.applyMany(trx, many);
    }
  };
  for (const [i, { events }] of appends.entries()) {
    const key = keys[i];
    if (key === undefined || key === null) continue;
    if (projection.applyMany && projection.manyKey?.(key, events) !== undefined) {
      group.push({ events, key });
      continue;
    }
    await flush();
    await projection.apply(trx, events, key);
  }
  await flush();
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
 * prune) names the second, and it joins the event before it in the same stream. Neighbouring
 * appends of an aggregate with `runMany` (keys read at once) are then projected together, in
 * order; every other append on its own.
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

  /**
   * Projects `events` (WAL order, data as decrypted JSON) through their aggregates' projections;
   * neighbouring appends of an aggregate that projects many at once go together.
   */
  async project(trx: AnyTrx, events: readonly StoredEvent[], ctx = NO_ATTACHMENTS): Promise<void> {
    let together: { item: Replayable; appends: StoredEvent[][] } | undefined;
    const flush = async () => {
      if (!together) return;
      const { item, appends } = together;
      together = undefined;
      if (appends.length === 1 || !item.runMany) {
        for (const append of appends) await item.run(trx, append, ctx);
      } else {
        await item.runMany(trx, appends, ctx);
      }
    };
    for (const append of this.#appends(events)) {
      const item = this.#ownerOf(append);
      if (together?.item !== item) await flush();
      if (together) together.appends.push(append);
      else together = { item, appends: [append] };
    }
    await flush();
  }

  /** The appends of `events`: runs of one stream joined as the class comment says (see the class comment). */
  *#appends(events: readonly StoredEvent[]): Generator<StoredEvent[]> {
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
      yield events.slice(i, end);
      i = end;
    }
  }

  #ownerOf(run: readonly StoredEvent[]): Replayable {
    const first = run[0] as StoredEvent;
    const item = this.#byType.get(first.type);
    if (!item) throw new ReplayError(`no replayable aggregate owns event ${first.type}`);
    if (run.some((e) => this.#byType.get(e.type) !== item))
      throw new ReplayError(`events of two aggregates in one append of ${first.stream}`);
    return item;
  }
}
