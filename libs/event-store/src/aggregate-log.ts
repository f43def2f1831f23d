import { z } from 'zod';
import { EventStore, type EventStoreOptions } from './event-store';
import { EventRegistry, EventSchemaError } from './event-registry';
import type { ServiceRuntime } from './runtime';
import type {
  AnyTrx,
  AppendedEvent,
  AppendOptions,
  AppendResult,
  EventType,
  ManyProjection,
  NewEvent,
} from './event-store-types';

/**
 * The one way a service builds its event log: each aggregate declares its event table and stream
 * naming once (defineAggregateLog), the service composes one store from all its aggregates'
 * tables (createServiceEventStore), and every append runs the aggregate's projection in its
 * transaction (AggregateLog.writer, provided to Nest by writerProvider).
 */

/** An aggregate's event types keyed by a short local name, declared `as const`. */
export type EventTable = Readonly<Record<string, EventType>>;

/** The discriminated union a table describes: one `{ type, data }` per event type, data as parsed. */
export type EventOf<T extends EventTable> = {
  [K in keyof T]: { type: T[K]['name']; data: z.output<T[K]['schema']> };
}[keyof T];

/** An aggregate's event as appended or read back: the typed event and its place in the stream. */
export type AppendedOf<T extends EventTable> = EventOf<T> &
  Pick<AppendedEvent, 'stream' | 'streamVersion' | 'recordedAt'>;

/**
 * An aggregate's read-model update, run in the transaction of each append (see
 * AppendOptions.project: act through `trx` only, expect to be run again after a rollback).
 * `key` is the append's key (the stream's identity plus what the append knows beyond its events,
 * e.g. key material never logged).
 */
export interface Projection<T extends EventTable, R = void, K = void> {
  apply(trx: AnyTrx, events: AppendedOf<T>[], key: K): Promise<R>;
  /**
   * Optional, with applyMany: the read-model row an append of `events` writes, or undefined when
   * applyMany cannot take it (then it runs through `apply` alone).
   */
  manyKey?(key: K, events: readonly EventOf<T>[]): string | undefined;
  /**
   * Optional: the update of several appends (in order; several may share a manyKey) in one
   * statement, one result per append (see ManyProjection). `apply` must do the same for one append.
   */
  applyMany?(trx: AnyTrx, appends: ReadonlyArray<{ events: AppendedOf<T>[]; key: K }>): Promise<R[]>;
}

export interface AggregateLog<T extends EventTable, K = void> {
  /** names the aggregate in decode errors ("a token event") */
  readonly description: string;
  readonly table: T;
  /** the stream an append of `key` goes to (one stream per aggregate instance) */
  readonly streamOf: (key: K) => string;
  /** the union at the current versions, discriminated on `type` */
  readonly schema: z.ZodType<EventOf<T>>;
  /** every event type of the aggregate, for the service's registry */
  readonly eventTypes: readonly EventType[];
  /** the events as written, each at its type's current version */
  encode(events: readonly EventOf<T>[]): NewEvent[];
  /** a stored event back into the union, upcast from an older version; throws for other types */
  decode(event: Pick<AppendedEvent, 'type' | 'schemaVersion' | 'data'>): EventOf<T>;
  /** appends and projects on `store` (the service's, see createServiceEventStore) */
  writer<R>(store: EventStore, projection: Projection<T, R, K>): AggregateWriter<T, R, K>;
}

/** Data of `type` stored at `version`, through the upcasters of its prior versions, then parsed. */
function upcast(type: EventType, version: number, data: unknown): unknown {
  if (version === type.version) return type.schema.parse(data);
  const priors = type.priors ?? [];
  const start = priors.findIndex((p) => p.version === version);
  if (start < 0) throw new EventSchemaError(type.name, version, 'no such version of the event type');
  let current = data;
  for (const prior of priors.slice(start)) current = prior.upcast(prior.schema.parse(current));
  return type.schema.parse(current);
}

export interface AggregateLogSpec<T extends EventTable, K> {
  /** names the aggregate in errors: "a token event" */
  description: string;
  /** its event types (defineEvent, or `{ name, version, schema }`), names in the past tense */
  events: T;
  /** its stream naming, e.g. `(accessor: string) => \`token/${accessor}\`` */
  stream: (key: K) => string;
}

export function defineAggregateLog<T extends EventTable, K = void>(
  spec: AggregateLogSpec<T, K>,
): AggregateLog<T, K> {
  const { description, events: table } = spec;
  const eventTypes: readonly EventType[] = Object.values(table);
  const byName = new Map(eventTypes.map((t) => [t.name, t]));
  if (byName.size !== eventTypes.length) throw new Error(`${description}: an event type is listed twice`);
  const typeOf = (name: string): EventType => {
    const t = byName.get(name);
    if (!t) throw new Error(`not ${description}: ${name}`);
    return t;
  };
  const members = eventTypes.map((t) => z.object({ type: z.literal(t.name), data: t.schema }));
  const [first, ...rest] = members;
  if (!first) throw new Error(`${description}: no event types`);
  // the members mirror the table entry by entry, so the union parses to EventOf<T>
  const schema = z.discriminatedUnion('type', [first, ...rest]) as unknown as z.ZodType<EventOf<T>>;
  const log: AggregateLog<T, K> = {
    description,
    table,
    streamOf: spec.stream,
    schema,
    eventTypes,
    encode: (events) => events.map((e) => ({ type: e.type, version: typeOf(e.type).version, data: e.data })),
    // the name picked the table entry, so the parsed data is that member's data
    decode: (e) => ({ type: e.type, data: upcast(typeOf(e.type), e.schemaVersion, e.data) }) as EventOf<T>,
    writer: (store, projection) => new AggregateWriter(log, store, projection),
  };
  return log;
}

/** An aggregate's appends on its service's store, each projected in the append's transaction. */
export class AggregateWriter<T extends EventTable, R, K = void> {
  /** the projection's applyMany as the store takes it (one object: appends sharing it batch) */
  private readonly many: ManyProjection | undefined;

  constructor(
    readonly log: AggregateLog<T, K>,
    private readonly store: EventStore,
    private readonly projection: Projection<T, R, K>,
  ) {
    const applyMany = projection.applyMany?.bind(projection);
    // the store passes back each append's own events and the context given with it (its key)
    this.many = applyMany && {
      apply: (trx, appends) =>
        applyMany(
          trx,
          appends.map((a) => ({ events: a.events as AppendedOf<T>[], key: a.context as K })),
        ),
    };
  }

  /**
   * Appends `events` to the stream of `key` if it is still at `expectedVersion` (0 = new stream,
   * 'any' = no check; a mismatch throws ConcurrencyError, see retryOnConflict) and returns what
   * the projection returned. The projection sees the events as validated by the registry.
   * `chain`: see AppendOptions.link and after (a write decided on the outcome of an earlier
   * append of the stream that has not committed yet).
   */
  async append(
    key: K,
    expectedVersion: number | 'any',
    events: readonly EventOf<T>[],
    chain: Pick<AppendOptions<R>, 'link' | 'after'> = {},
  ): Promise<R> {
    const manyKey = this.many && this.projection.manyKey?.(key, events);
    const result: AppendResult<R> = await this.store.append(this.log.streamOf(key), this.log.encode(events), {
      ...chain,
      ...(this.many && manyKey !== undefined ? { projectMany: { projection: this.many, context: key } } : {}),
      expectedVersion,
      // the store appended exactly these events, in order, each parsed by its type's schema
      project: (trx, appended) => this.projection.apply(trx, appended as AppendedOf<T>[], key),
    });
    return result.projected;
  }

  /**
   * The stream's current version (0 = never written). What a create must expect when the read
   * model has no row: a deleted aggregate leaves its stream behind, and one created again under
   * the same key continues it.
   */
  version(key: K): Promise<number> {
    return this.store.streamVersion(this.log.streamOf(key));
  }

  /** The stream's events (from `fromVersion`, default 1), decoded into the aggregate's union. */
  async read(key: K, fromVersion = 1): Promise<AppendedOf<T>[]> {
    const stored = await this.store.readStream(this.log.streamOf(key), fromVersion);
    return stored.map((e) => ({
      ...this.log.decode(e),
      stream: e.stream,
      streamVersion: e.streamVersion,
      recordedAt: e.recordedAt,
    }));
  }
}

/**
 * A Nest provider (plain object, so this lib needs no Nest) of an aggregate's writer: `token` is
 * the aggregate's abstract AggregateWriter subclass, `storeToken` the service's store token,
 * `projection` the injectable projection class.
 */
export function writerProvider<T extends EventTable, R, K>(
  token: abstract new (...args: never[]) => AggregateWriter<T, R, K>,
  storeToken: symbol,
  log: AggregateLog<T, K>,
  projection: abstract new (...args: never[]) => Projection<T, R, K>,
) {
  return {
    provide: token,
    useFactory: (store: EventStore, p: Projection<T, R, K>) => log.writer(store, p),
    inject: [storeToken, projection],
  };
}

/** For aggregates without a read model (e.g. a one-off salt): appends project nothing. */
export function noProjection<T extends EventTable, K>(): Projection<T, undefined, K> {
  return { apply: () => Promise.resolve(undefined) };
}

/** The stream version after an append (the last event's); 0 without events. */
export const versionAfter = (events: readonly Pick<AppendedEvent, 'streamVersion'>[]): number =>
  events[events.length - 1]?.streamVersion ?? 0;

/** What a service's store needs of each of its aggregates' logs. */
export type ServiceAggregate = Pick<AggregateLog<EventTable, never>, 'description' | 'eventTypes'>;

/**
 * A service's one event store: its schema, barrier and clock from the runtime, and a registry
 * composed of every aggregate's event types (the log is shared by all of the service's aggregates).
 */
export function createServiceEventStore(
  runtime: Pick<ServiceRuntime, 'db' | 'schema' | 'cipher' | 'clock'>,
  logs: readonly ServiceAggregate[],
  /** a service keeping a replica log beside its own (EventStoreOptions.replicaLog) */
  opts: Pick<EventStoreOptions, 'replicaLog'> = {},
): EventStore {
  return new EventStore({
    db: runtime.db,
    schema: runtime.schema,
    cipher: runtime.cipher,
    clock: runtime.clock,
    registry: new EventRegistry(logs.flatMap((l) => l.eventTypes)),
    ...opts,
  });
}
