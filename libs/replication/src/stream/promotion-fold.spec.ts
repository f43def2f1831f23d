import { bySize } from './promotion-fold';

describe('bySize', () => {
  const row = (wal: number, bytes: number) => ({ wal, data: 'x'.repeat(bytes) });

  it('keeps a small batch in one request through the batch end (placeholders after the last row)', () => {
    const events = [row(1, 10), row(2, 10)];
    expect(bySize(events, 5)).toEqual([{ events, through: 5 }]);
  });

  it('splits a large batch in order, each request through its last row, the last through the batch end', () => {
    const events = [row(1, 200_000), row(2, 200_000), row(3, 200_000), row(4, 10)];
    const chunks = bySize(events, 9);
    expect(chunks.map((c) => [c.events.map((e) => e.wal), c.through])).toEqual([
      [[1], 1],
      [[2], 2],
      [[3, 4], 9],
    ]);
  });

  it('sends an empty request when every row was a placeholder (the position still moves)', () => {
    expect(bySize([], 7)).toEqual([{ events: [], through: 7 }]);
  });
});
