import {
  EventRegistry,
  EventStore,
  defineEvent,
  type AppendedEvent,
  type EventDefinition,
  type EventType,
  type NewEvent,
  type ServiceRuntime,
} from '@coffer/event-store';
import type { z } from 'zod';

/** An aggregate's event types keyed by a short local name, declared `as const`. */
export type EventTable = Readonly<Record<string, EventType<string, z.ZodType>>>;

/** The tagged union a table describes: one `{ type, data }` per event type, data as parsed. */
export type EventOf<T extends EventTable> = {
  [K in keyof T]: { type: T[K]['name']; data: z.output<T[K]['schema']> };
}[keyof T];

/**
 * The scaffolding every event-sourced aggregate log of core_sys shares, derived from its event
 * table so the names, versions and schemas are written down once.
 */
export interface AggregateLog<T extends EventTable> {
  /** every event type the aggregate's streams may hold, for registries that must read them */
  readonly eventTypes: EventDefinition[];
  /** the aggregate's events as written, each at its type's current schema version */
  toNewEvents(events: readonly EventOf<T>[]): NewEvent[];
  /** a stored event of the aggregate back into its union; throws for any other type */
  decode(event: AppendedEvent): EventOf<T>;
  /** an event store over the runtime's log that knows exactly these event types */
  createStore(runtime: ServiceRuntime): EventStore;
}

/**
 * `description` names the aggregate in decode errors ("an identity event"). `extraTypes` are
 * event types kept in the same log but outside the aggregate's union (e.g. a one-off salt).
 */
export function defineAggregateLog<T extends EventTable>(
  description: string,
  table: T,
  extraTypes: readonly EventType[] = [],
): AggregateLog<T> {
  const entries: readonly EventType[] = Object.values(table);
  const byName = new Map(entries.map((t) => [t.name, t]));
  const eventTypes = [...entries, ...extraTypes].map((t) => defineEvent(t.name, t.version, t.schema));
  const versionOf = (type: string): number => {
    const t = byName.get(type);
    if (!t) throw new Error(`not ${description}: ${type}`);
    return t.version;
  };
  return {
    eventTypes,
    toNewEvents: (events) => events.map((e) => ({ type: e.type, version: versionOf(e.type), data: e.data })),
    decode: (event) => {
      const t = byName.get(event.type);
      if (!t) throw new Error(`not ${description}: ${event.type}`);
      // the name picked the table entry, so the parsed data is that member's data
      return { type: event.type, data: t.schema.parse(event.data) } as EventOf<T>;
    },
    createStore: (runtime) =>
      new EventStore({
        db: runtime.db,
        schema: runtime.schema,
        cipher: runtime.cipher,
        clock: runtime.clock,
        registry: new EventRegistry(eventTypes),
      }),
  };
}
