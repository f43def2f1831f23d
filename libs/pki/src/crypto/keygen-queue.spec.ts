import { KeygenQueue } from './keygen-queue';

describe('KeygenQueue', () => {
  it('runs at most `concurrency` jobs and refuses past the limit at once', async () => {
    const queue = new KeygenQueue(1, 1);
    let release: () => void = () => undefined;
    const blocker = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = queue.run(async () => {
      await blocker;
      order.push('first');
    });
    const second = queue.run(() => {
      order.push('second');
      return Promise.resolve();
    });
    expect(queue.pending).toBe(1);
    await expect(queue.run(() => Promise.resolve())).rejects.toMatchObject({ code: 'rate_limited' });
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    await expect(queue.run(() => Promise.resolve('again'))).resolves.toBe('again');
  });
});

describe('KeygenQueue costs', () => {
  it('weighs waiting jobs by cost', async () => {
    const queue = new KeygenQueue(1, 8);
    let release: () => void = () => undefined;
    const running = queue.run(() => new Promise<void>((resolve) => (release = resolve)));
    const big = queue.run(() => Promise.resolve('big'), 8);
    await expect(queue.run(() => Promise.resolve(), 1)).rejects.toMatchObject({ code: 'rate_limited' });
    release();
    await running;
    await expect(big).resolves.toBe('big');
  });
});
