import { ShutdownSequence, runWithShutdown } from './shutdown';

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

describe('runWithShutdown', () => {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  let before: Map<string, NodeJS.SignalsListener[]>;
  beforeEach(() => {
    before = new Map(signals.map((s) => [s, process.listeners(s)]));
  });
  afterEach(() => {
    // The handlers it installs would otherwise outlive the test in this worker.
    for (const s of signals) {
      for (const l of process.listeners(s)) if (!before.get(s)?.includes(l)) process.off(s, l);
    }
  });

  it('releases what start-up created and exits 1 when start-up fails', async () => {
    const errors: string[] = [];
    const released: string[] = [];
    const exit = jest.fn();
    await runWithShutdown(
      { log: () => undefined, error: (m) => void errors.push(m) },
      async (shutdown) => {
        shutdown.add('database', () => void released.push('database'));
        shutdown.add('transport', () => void released.push('transport'));
        throw new Error('nats unreachable');
      },
      exit,
    );
    expect(released).toEqual(['transport', 'database']);
    expect(exit).toHaveBeenCalledWith(1);
    expect(errors[0]).toContain('start-up failed: Error: nats unreachable');
  });

  it('leaves the process running once start-up succeeded', async () => {
    const exit = jest.fn();
    await runWithShutdown({ log: () => undefined, error: () => undefined }, async () => undefined, exit);
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount('SIGTERM')).toBe((before.get('SIGTERM')?.length ?? 0) + 1);
  });
});
