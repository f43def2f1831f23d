import type { RawEvent, StoredEvent } from './event-store-types';
import { mergeByTime, openBatches } from './replica-history';

const event = (wal: number, streamVersion: number, at: string): StoredEvent => ({
  wal,
  stream: 's',
  streamVersion,
  type: 'T',
  schemaVersion: 1,
  data: {},
  recordedAt: new Date(at),
  hash: '0'.repeat(64),
});

describe('mergeByTime', () => {
  it("interleaves the replica log's and the own log's events by the time they were recorded", () => {
    const replicated = [event(1, 1, '2030-01-01T00:00:01Z'), event(4, 2, '2030-01-01T00:00:03Z')];
    const own = [event(1, 1, '2030-01-01T00:00:02Z'), event(2, 2, '2030-01-01T00:00:04Z')];
    expect(mergeByTime(replicated, own).map((e) => e.recordedAt.getUTCSeconds())).toEqual([1, 2, 3, 4]);
  });

  it('puts the replicated event first on a tie, and keeps each side in its own order', () => {
    const replicated = [event(7, 1, '2030-01-01T00:00:05Z')];
    const own = [event(3, 1, '2030-01-01T00:00:05Z'), event(2, 2, '2030-01-01T00:00:05Z')];
    expect(mergeByTime(replicated, own).map((e) => e.wal)).toEqual([7, 3, 2]);
  });

  it('answers either side alone unchanged', () => {
    const only = [event(1, 1, '2030-01-01T00:00:01Z'), event(2, 2, '2030-01-01T00:00:02Z')];
    expect(mergeByTime(only, [])).toEqual(only);
    expect(mergeByTime([], only)).toEqual(only);
  });
});

describe('openBatches', () => {
  const row = (wal: number, bytes: number): RawEvent => ({
    wal,
    stream: 's',
    streamVersion: wal,
    type: 'T',
    schemaVersion: 1,
    payload: Buffer.alloc(bytes),
    recordedAt: new Date('2030-01-01T00:00:00Z'),
    hash: '0'.repeat(64),
  });
  const wals = (batches: RawEvent[][]) => batches.map((b) => b.map((r) => r.wal));

  it('cuts by rows and by sealed bytes, in order; a row larger than the bound goes alone', () => {
    const rows = [row(1, 10), row(2, 10), row(3, 10), row(4, 100), row(5, 10), row(6, 10)];
    expect(wals(openBatches(rows, 30, 2))).toEqual([[1, 2], [3], [4], [5, 6]]);
    expect(wals(openBatches(rows, 1_000, 64))).toEqual([[1, 2, 3, 4, 5, 6]]);
    expect(openBatches([], 30, 2)).toEqual([]);
  });
});
