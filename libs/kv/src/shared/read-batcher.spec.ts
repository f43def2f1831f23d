import { ReadBatcher } from './read-batcher';

describe('ReadBatcher', () => {
  it('answers reads of one turn with one load, each with its own row', async () => {
    const loads: string[][] = [];
    const batcher = new ReadBatcher<string, string>(async (keys) => {
      loads.push([...keys]);
      return keys.map((k) => (k === 'missing' ? undefined : `row:${k}`));
    });
    const answers = await Promise.all(['a', 'missing', 'b', 'a'].map((k) => batcher.read(k)));
    expect(answers).toEqual(['row:a', undefined, 'row:b', 'row:a']);
    expect(loads).toEqual([['a', 'missing', 'b', 'a']]);
  });

  it('starts a new batch for reads issued after a flush', async () => {
    const loads: number[][] = [];
    const batcher = new ReadBatcher<number, number>(async (keys) => {
      loads.push([...keys]);
      return keys.map((k) => k * 2);
    });
    expect(await batcher.read(1)).toBe(2);
    expect(await Promise.all([batcher.read(2), batcher.read(3)])).toEqual([4, 6]);
    expect(loads).toEqual([[1], [2, 3]]);
  });

  it('flushes at the batch limit without waiting for the turn to end', async () => {
    const loads: number[][] = [];
    const batcher = new ReadBatcher<number, number>(async (keys) => {
      loads.push([...keys]);
      return [...keys];
    }, 2);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((k) => batcher.read(k)));
    expect(answers).toEqual([1, 2, 3, 4, 5]);
    expect(loads).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fails every read of a failed batch, and only that batch', async () => {
    let fail = true;
    const batcher = new ReadBatcher<number, number>(async (keys) => {
      if (fail) throw new Error('connection lost');
      return [...keys];
    });
    const failed = await Promise.allSettled([batcher.read(1), batcher.read(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.read(3)).toBe(3);
  });

  it('with oneInFlight, holds reads issued during a load and sends them as one batch after it', async () => {
    const loads: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new ReadBatcher<number, number>(
      async (keys) => {
        loads.push([...keys]);
        if (loads.length === 1) await gate;
        return [...keys];
      },
      256,
      'test batch',
      { oneInFlight: true },
    );
    const first = batcher.read(1);
    await new Promise((resolve) => setImmediate(resolve));
    // the first load is running: these three arrive in different turns and wait for it
    const later: Promise<number | undefined>[] = [];
    for (const k of [2, 3, 4]) {
      later.push(batcher.read(k));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(loads).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3, 4]);
    expect(loads).toEqual([[1], [2, 3, 4]]);
  });
});
