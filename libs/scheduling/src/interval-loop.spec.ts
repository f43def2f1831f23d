import { IntervalLoop } from './interval-loop';

describe('IntervalLoop', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval, one pass at a time, and reports failures without stopping', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    const errors: unknown[] = [];
    const loop = new IntervalLoop({
      intervalMs: 100,
      run: () => {
        runs += 1;
        if (runs === 1) return Promise.reject(new Error('boom'));
        return new Promise<void>((resolve) => (release = resolve));
      },
      onError: (e) => errors.push(e),
    });
    loop.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    expect(errors).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    // the second pass still runs: ticks meanwhile are skipped
    await jest.advanceTimersByTimeAsync(300);
    expect(runs).toBe(2);
    const stopped = loop.stop();
    release();
    await stopped;
    await jest.advanceTimersByTimeAsync(500);
    expect(runs).toBe(2);
  });

  it('never runs with an interval of 0', async () => {
    const run = jest.fn(() => Promise.resolve());
    const loop = new IntervalLoop({ intervalMs: 0, run, onError: () => undefined });
    loop.start();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(run).not.toHaveBeenCalled();
    await loop.stop();
  });
});
