import { TokenUseQueue } from './token-use-queue';

/** A promise settled from outside, to hold a use open while others queue behind it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('TokenUseQueue', () => {
  it('runs the uses of one token one after another, in arrival order', async () => {
    const queue = new TokenUseQueue();
    const order: string[] = [];
    let running = 0;
    const use = (name: string) =>
      queue.run('a', async () => {
        running++;
        expect(running).toBe(1);
        await Promise.resolve();
        order.push(name);
        running--;
        return name;
      });
    expect(await Promise.all([use('1'), use('2'), use('3')])).toEqual(['1', '2', '3']);
    expect(order).toEqual(['1', '2', '3']);
  });

  it('does not hold one token behind another', async () => {
    const queue = new TokenUseQueue();
    const held = gate();
    const first = queue.run('a', () => held.promise.then(() => 'a'));
    expect(await queue.run('b', () => Promise.resolve('b'))).toBe('b');
    held.open();
    expect(await first).toBe('a');
  });

  it('goes on after a failed use and forgets idle tokens', async () => {
    const queue = new TokenUseQueue();
    const failed = queue.run('a', () => Promise.reject(new Error('permission denied')));
    const next = queue.run('a', () => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('permission denied');
    expect(await next).toBe('next');
    // the bookkeeping settles after the use's own promise
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
  });
});
