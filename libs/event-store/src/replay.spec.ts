import { z } from 'zod';
import { defineAggregateLog, type AppendedOf } from './aggregate-log';
import { defineEvent } from './event-registry';
import { replayable, ReplayError, ReplayRegistry } from './replay';
import type { AnyTrx, StoredEvent } from './event-store-types';

const NOTE_EVENTS = {
  written: defineEvent('NoteWritten', 1, z.object({ text: z.string() })),
  trimmed: defineEvent('NoteTrimmed', 1, z.object({ to: z.number() })),
} as const;
const NOTE_LOG = defineAggregateLog({
  description: 'a note event',
  events: NOTE_EVENTS,
  stream: (id: string) => `note/${id}`,
});

let wal = 0;
const stored = (stream: string, streamVersion: number, type: string, data: unknown): StoredEvent => ({
  wal: ++wal,
  stream,
  streamVersion,
  type,
  schemaVersion: 1,
  data,
  recordedAt: new Date('2030-01-01T00:00:00Z'),
  hash: '0'.repeat(64),
});

describe('ReplayRegistry', () => {
  const calls: Array<{ key: string; types: string[] }> = [];
  const projection = {
    apply: (_trx: AnyTrx, events: AppendedOf<typeof NOTE_EVENTS>[], key: string) => {
      calls.push({ key, types: events.map((e) => e.type) });
      return Promise.resolve();
    },
  };
  const registry = new ReplayRegistry([
    replayable(NOTE_LOG, projection, (_trx, stream) => (stream === 'note/skip' ? null : stream.slice(5)), {
      joinsAppend: ['NoteTrimmed'],
    }),
  ]);
  const trx = {} as AnyTrx;
  beforeEach(() => calls.splice(0));

  it('projects one event at a time, a joining type with the event before it in its stream', async () => {
    await registry.project(trx, [
      stored('note/a', 1, 'NoteWritten', { text: 'x' }),
      stored('note/a', 2, 'NoteWritten', { text: 'y' }),
      stored('note/a', 3, 'NoteTrimmed', { to: 1 }),
      stored('note/b', 1, 'NoteWritten', { text: 'z' }),
      stored('note/b', 2, 'NoteTrimmed', { to: 0 }),
      stored('note/skip', 1, 'NoteWritten', { text: 'w' }),
    ]);
    expect(calls).toEqual([
      { key: 'a', types: ['NoteWritten'] },
      { key: 'a', types: ['NoteWritten', 'NoteTrimmed'] },
      { key: 'b', types: ['NoteWritten', 'NoteTrimmed'] },
    ]);
  });

  it('parses the data with the event schema and refuses an event no aggregate owns', async () => {
    await expect(registry.project(trx, [stored('note/a', 1, 'NoteWritten', { text: 1 })])).rejects.toThrow();
    await expect(registry.project(trx, [stored('x/a', 1, 'Unknown', {})])).rejects.toBeInstanceOf(
      ReplayError,
    );
  });
});

describe('ReplayRegistry with keysOf (many appends at once)', () => {
  const calls: Array<{ how: 'one' | 'many'; appends: Array<{ key: string; types: string[] }> }> = [];
  const keyBatches: string[][] = [];
  type Appended = AppendedOf<typeof NOTE_EVENTS>;
  const projection = {
    apply: (_trx: AnyTrx, events: Appended[], key: string) => {
      calls.push({ how: 'one', appends: [{ key, types: events.map((e) => e.type) }] });
      return Promise.resolve();
    },
    // a trim alone is not taken by the multi-row statement
    manyKey: (key: string, events: readonly { type: string }[]) =>
      events[0]?.type === 'NoteWritten' ? key : undefined,
    applyMany: (_trx: AnyTrx, appends: ReadonlyArray<{ events: Appended[]; key: string }>) => {
      calls.push({
        how: 'many',
        appends: appends.map((a) => ({ key: a.key, types: a.events.map((e) => e.type) })),
      });
      return Promise.resolve(appends.map(() => undefined));
    },
  };
  const keyOf = (_trx: AnyTrx, stream: string) => stream.slice(5);
  const registry = new ReplayRegistry([
    replayable(NOTE_LOG, projection, keyOf, {
      joinsAppend: ['NoteTrimmed'],
      keysOf: (_trx, appends) => {
        keyBatches.push(appends.map((a) => a.stream));
        return Promise.resolve(appends.map((a) => (a.stream === 'note/skip' ? null : a.stream.slice(5))));
      },
    }),
  ]);
  const trx = {} as AnyTrx;

  it('reads the keys once, batches neighbouring writes and keeps every other append in its place', async () => {
    await registry.project(trx, [
      stored('note/a', 1, 'NoteWritten', { text: 'x' }),
      stored('note/a', 2, 'NoteWritten', { text: 'y' }),
      stored('note/a', 3, 'NoteTrimmed', { to: 1 }),
      stored('note/skip', 1, 'NoteWritten', { text: 'w' }),
      stored('note/b', 1, 'NoteWritten', { text: 'z' }),
      stored('note/b', 2, 'NoteTrimmed', { to: 0 }),
      stored('note/a', 4, 'NoteTrimmed', { to: 0 }),
      stored('note/c', 1, 'NoteWritten', { text: 'v' }),
    ]);
    expect(keyBatches).toEqual([['note/a', 'note/a', 'note/skip', 'note/b', 'note/a', 'note/c']]);
    expect(calls).toEqual([
      {
        how: 'many',
        appends: [
          { key: 'a', types: ['NoteWritten'] },
          { key: 'a', types: ['NoteWritten', 'NoteTrimmed'] },
          { key: 'b', types: ['NoteWritten', 'NoteTrimmed'] },
        ],
      },
      { how: 'one', appends: [{ key: 'a', types: ['NoteTrimmed'] }] },
      { how: 'one', appends: [{ key: 'c', types: ['NoteWritten'] }] },
    ]);
  });
});
