import type { AppendedEvent } from '@coffer/event-store';
import { z } from 'zod';
import { defineAggregateLog, type EventOf } from './aggregate-log';

const TABLE = {
  opened: { name: 'DoorOpened', version: 2, schema: z.object({ by: z.string() }) },
  closed: { name: 'DoorClosed', version: 1, schema: z.object({ at: z.number().int() }) },
} as const;
const EXTRA = { name: 'DoorPainted', version: 1, schema: z.object({ colour: z.string() }) } as const;
const LOG = defineAggregateLog('a door event', TABLE, [EXTRA]);

const stored = (type: string, data: unknown): AppendedEvent => ({
  stream: 'door/1',
  streamVersion: 1,
  type,
  schemaVersion: 1,
  data,
  recordedAt: new Date(0),
});

describe('defineAggregateLog', () => {
  it('lists the table types, then the extra ones', () => {
    expect(LOG.eventTypes.map((t) => [t.name, t.version])).toEqual([
      ['DoorOpened', 2],
      ['DoorClosed', 1],
      ['DoorPainted', 1],
    ]);
  });

  it('writes events at their current schema version', () => {
    const events: EventOf<typeof TABLE>[] = [
      { type: 'DoorOpened', data: { by: 'ann' } },
      { type: 'DoorClosed', data: { at: 5 } },
    ];
    expect(LOG.toNewEvents(events)).toEqual([
      { type: 'DoorOpened', version: 2, data: { by: 'ann' } },
      { type: 'DoorClosed', version: 1, data: { at: 5 } },
    ]);
  });

  it('decodes its own events with their schema', () => {
    expect(LOG.decode(stored('DoorClosed', { at: 7 }))).toEqual({ type: 'DoorClosed', data: { at: 7 } });
    expect(() => LOG.decode(stored('DoorClosed', { at: 'x' }))).toThrow();
  });

  it('refuses events outside the union, extra types included', () => {
    expect(() => LOG.decode(stored('DoorPainted', { colour: 'red' }))).toThrow(
      'not a door event: DoorPainted',
    );
    expect(() => LOG.decode(stored('WindowOpened', {}))).toThrow('not a door event: WindowOpened');
  });
});
