import { ShutdownSequence } from './shutdown';

describe('ShutdownSequence', () => {
  const logger = { log: () => undefined, error: () => undefined };

  it('runs the steps once, last registered first', async () => {
    const order: string[] = [];
    const seq = new ShutdownSequence(logger);
    seq.add('database', () => void order.push('database'));
    seq.add('transport', async () => {
      await Promise.resolve();
      order.push('transport');
    });
    seq.add('gateway', () => void order.push('gateway'));
    expect(seq.started).toBe(false);
    await Promise.all([seq.run(), seq.run()]);
    expect(seq.started).toBe(true);
    expect(order).toEqual(['gateway', 'transport', 'database']);
  });

  it('runs every step even when one fails, then reports the failure', async () => {
    const order: string[] = [];
    const seq = new ShutdownSequence(logger);
    seq.add('a', () => void order.push('a'));
    seq.add('b', () => {
      throw new Error('boom');
    });
    seq.add('c', () => void order.push('c'));
    await expect(seq.run()).rejects.toThrow('shutdown failed: b: boom');
    expect(order).toEqual(['c', 'a']);
  });
});
