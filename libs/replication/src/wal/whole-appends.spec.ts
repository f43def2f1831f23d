import { wholeAppends } from './whole-appends';

const row = (stream: string, streamVersion: number, ms = streamVersion) => ({
  stream,
  streamVersion,
  recordedAt: new Date(ms),
});

describe('wholeAppends', () => {
  it('keeps a batch shorter than the limit: it ends at the log head, between appends', () => {
    const rows = [row('a', 1), row('b', 4, 9), row('b', 5, 9)];
    expect(wholeAppends(rows, 4)).toBe(rows);
  });

  it("gives back a full batch's last append, which the limit may have cut", () => {
    // kv v2: a version write and its prune are one append (one time); the limit fell after the write
    const rows = [row('a', 1), row('hot', 11, 50), row('hot', 12, 50), row('hot', 13, 51)];
    expect(wholeAppends(rows, 4)).toEqual(rows.slice(0, 3));
  });

  it("holds back a hot key's last append even when the whole batch is that key", () => {
    const rows = [row('hot', 1, 7), row('hot', 2, 7), row('hot', 3, 8), row('hot', 4, 8), row('hot', 5, 9)];
    expect(wholeAppends(rows, 5)).toEqual(rows.slice(0, 4));
  });

  it('ends an append where the stream or the version sequence changes', () => {
    const rows = [row('hot', 1, 1), row('hot', 3, 1), row('x', 1, 1), row('x', 2, 1)];
    expect(wholeAppends(rows, 4)).toEqual(rows.slice(0, 2));
  });

  it('keeps a full batch it cannot tell apart (one stream, one millisecond)', () => {
    const rows = [row('hot', 1, 5), row('hot', 2, 5), row('hot', 3, 5)];
    expect(wholeAppends(rows, 3)).toBe(rows);
  });
});
