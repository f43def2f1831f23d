import type { StoredEvent } from './event-store-types';
import { mergeByTime } from './replica-history';

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
