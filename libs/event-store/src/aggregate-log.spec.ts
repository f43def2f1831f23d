import { z } from 'zod';
import { defineAggregateLog, type EventOf } from './aggregate-log';
import { defineEvent, EventRegistry, priorVersion } from './event-registry';

const TABLE = {
  opened: defineEvent('DoorOpened', 2, z.object({ by: z.string(), at: z.number().int() }), [
    priorVersion(1, z.object({ who: z.string() }), (d) => ({ by: d.who, at: 0 })),
  ]),
  closed: { name: 'DoorClosed', version: 1, schema: z.object({ at: z.number().int() }) },
} as const;
const LOG = defineAggregateLog({
  description: 'a door event',
  events: TABLE,
  stream: (door: number) => `door/${door}`,
});

const stored = (type: string, data: unknown, schemaVersion = 1) => ({ type, schemaVersion, data });

describe('defineAggregateLog', () => {
  it('lists its event types and names its streams', () => {
    expect(LOG.eventTypes.map((t) => [t.name, t.version])).toEqual([
      ['DoorOpened', 2],
      ['DoorClosed', 1],
    ]);
    expect(LOG.streamOf(7)).toBe('door/7');
  });

  it('writes events at their current schema version', () => {
    const events: EventOf<typeof TABLE>[] = [
      { type: 'DoorOpened', data: { by: 'ann', at: 1 } },
      { type: 'DoorClosed', data: { at: 5 } },
    ];
    expect(LOG.encode(events)).toEqual([
      { type: 'DoorOpened', version: 2, data: { by: 'ann', at: 1 } },
      { type: 'DoorClosed', version: 1, data: { at: 5 } },
    ]);
  });

  it('decodes its own events with their schema', () => {
    expect(LOG.decode(stored('DoorClosed', { at: 7 }))).toEqual({ type: 'DoorClosed', data: { at: 7 } });
    expect(() => LOG.decode(stored('DoorClosed', { at: 'x' }))).toThrow();
    expect(LOG.schema.parse({ type: 'DoorClosed', data: { at: 1 } })).toEqual({
      type: 'DoorClosed',
      data: { at: 1 },
    });
  });

  it('upcasts an event stored at an older version', () => {
    expect(LOG.decode(stored('DoorOpened', { who: 'bob' }, 1))).toEqual({
      type: 'DoorOpened',
      data: { by: 'bob', at: 0 },
    });
    expect(() => LOG.decode(stored('DoorOpened', {}, 3))).toThrow('no such version');
    // the registry reads both versions
    const registry = new EventRegistry(LOG.eventTypes);
    expect(registry.has('DoorOpened', 1) && registry.has('DoorOpened', 2)).toBe(true);
  });

  it('refuses events outside the union', () => {
    expect(() => LOG.decode(stored('WindowOpened', {}))).toThrow('not a door event: WindowOpened');
  });

  it('refuses prior versions out of order', () => {
    expect(() => defineEvent('X', 2, z.object({}), [priorVersion(2, z.object({}), (d) => d)])).toThrow(
      'prior versions',
    );
  });
});
