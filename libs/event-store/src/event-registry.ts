import type { z } from 'zod';
import type { EventType, NewEvent, PriorVersion } from './event-store-types';

/** An event type plus helpers to build it and to narrow stored events to it. */
export interface EventDefinition<
  N extends string = string,
  S extends z.ZodType = z.ZodType,
> extends EventType<N, S> {
  /** a NewEvent of this type and version (validated again on append) */
  create(data: z.input<S>): NewEvent & { type: N };
  is<E extends { type: string; schemaVersion: number; data: unknown }>(
    event: E,
  ): event is E & { type: N; data: z.output<S> };
}

/**
 * An older version of an event type, readable but no longer written: `upcast` turns its data into
 * the next version's input (chain them oldest first, see defineEvent's `priors`).
 */
export function priorVersion<S extends z.ZodType>(
  version: number,
  schema: S,
  upcast: (data: z.output<S>) => unknown,
): PriorVersion {
  return { version, schema, upcast: upcast as (data: unknown) => unknown };
}

/**
 * `priors`: older versions of the type still in the log, oldest first, each below `version`;
 * the registry accepts them on read and the aggregate log upcasts them (see aggregate-log.ts).
 */
export function defineEvent<N extends string, S extends z.ZodType>(
  name: N,
  version: number,
  schema: S,
  priors: readonly PriorVersion[] = [],
): EventDefinition<N, S> {
  // no "|" in names: the payload aad is "schema|stream|version|type", read from the right
  if (!/^[A-Za-z][A-Za-z0-9_.:-]*$/.test(name))
    throw new Error(`invalid event type name ${JSON.stringify(name)}`);
  if (!Number.isInteger(version) || version < 1)
    throw new Error(`event ${name}: version must be a positive integer`);
  priors.forEach((p, i) => {
    const next = priors[i + 1]?.version ?? version;
    if (!Number.isInteger(p.version) || p.version < 1 || p.version >= next)
      throw new Error(`event ${name}: prior versions must be positive, ascending and below ${version}`);
  });
  return {
    name,
    version,
    schema,
    priors,
    create: (data) => ({ type: name, version, data }),
    is: <E extends { type: string; schemaVersion: number; data: unknown }>(
      event: E,
    ): event is E & { type: N; data: z.output<S> } => event.type === name && event.schemaVersion === version,
  };
}

/** Event data failed its schema. The message names fields and issue codes only, never values. */
export class EventSchemaError extends Error {
  constructor(
    readonly eventType: string,
    readonly schemaVersion: number,
    detail: string,
  ) {
    super(`event ${eventType} v${schemaVersion}: ${detail}`);
    this.name = 'EventSchemaError';
  }
}

const key = (type: string, version: number) => `${type}@${version}`;

/** The event types a service may write and read; append validates, reads decode. */
export class EventRegistry {
  readonly #types = new Map<string, EventType>();

  constructor(types: readonly EventType[] = []) {
    for (const t of types) this.register(t);
  }

  /** Registers each type at its current version and at every prior version it reads. */
  register(...types: EventType[]): this {
    for (const t of types) {
      for (const v of [t, ...(t.priors ?? [])]) {
        const k = key(t.name, v.version);
        if (this.#types.has(k)) throw new Error(`event ${t.name} v${v.version} is registered twice`);
        this.#types.set(k, { name: t.name, version: v.version, schema: v.schema });
      }
    }
    return this;
  }

  has(type: string, version: number): boolean {
    return this.#types.has(key(type, version));
  }

  /** Validates a new event's data; returns the parsed data to store. */
  encode(event: NewEvent): unknown {
    return this.#parse(event.type, event.version, event.data);
  }

  /** Validates data read back from the log. */
  decode(type: string, version: number, data: unknown): unknown {
    return this.#parse(type, version, data);
  }

  #parse(type: string, version: number, data: unknown): unknown {
    const t = this.#types.get(key(type, version));
    if (!t) {
      const known = [...this.#types.keys()].sort().join(', ') || 'none';
      throw new EventSchemaError(type, version, `unknown event type (registered: ${known})`);
    }
    const result = t.schema.safeParse(data);
    if (!result.success) {
      const issues = result.error.issues
        .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.code}`)
        .join('; ');
      throw new EventSchemaError(type, version, `invalid data (${issues})`);
    }
    return result.data;
  }
}
