import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { RsaKeySupply, rsaKeyCost } from './rsa-key-supply';

/** A generator the test completes by hand: each call waits for `finish()`. */
function manualGenerator() {
  const calls: { bits: number; finish: () => void; fail: (e: Error) => void }[] = [];
  const generate = (bits: number): Promise<KeyObject> =>
    new Promise<KeyObject>((resolve, reject) =>
      calls.push({
        bits,
        // a distinct small key per call: the supply only moves KeyObjects around
        finish: () => resolve(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey),
        fail: reject,
      }),
    );
  return { calls, generate };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RsaKeySupply', () => {
  it('weighs key sizes by cost', () => {
    expect([2048, 3072, 4096].map(rsaKeyCost)).toEqual([1, 3, 8]);
  });

  it('serves waiters in order, one generation at a time, and refuses past the queue limit at once', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 2, maxWaitMs: 60_000, poolCost: 0 });
    const first = supply.take(2048);
    const second = supply.take(2048);
    expect(g.calls).toHaveLength(1);
    await expect(supply.take(2048)).rejects.toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/too many key generations/),
    });
    g.calls[0]?.finish();
    const a = await first;
    await flush();
    expect(g.calls).toHaveLength(2);
    g.calls[1]?.finish();
    expect(await second).not.toBe(a);
    await flush();
    // no pool: nothing generated once nobody waits
    expect(g.calls).toHaveLength(2);
    supply.close();
  });

  it('refills a pool of the sizes asked for when nobody waits, and hands each key out once', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 8, maxWaitMs: 60_000, poolCost: 2 });
    const first = supply.take(2048);
    g.calls[0]?.finish();
    const a = await first;
    for (let i = 1; i <= 2; i++) {
      await flush();
      g.calls[i]?.finish();
    }
    await flush();
    expect(supply.readyCount(2048)).toBe(2);
    expect(g.calls).toHaveLength(3);
    // 4096-bit keys (cost 8) never fit this pool
    expect(supply.readyCount(4096)).toBe(0);
    const [b, c] = await Promise.all([supply.take(2048), supply.take(2048)]);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(supply.readyCount(2048)).toBe(0);
    // taking from the pool starts its refill
    expect(g.calls).toHaveLength(4);
    supply.close();
  });

  it('refuses a waiter at maxWaitMs and gives its key to the pool instead of to nobody', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'performance'] });
    try {
      const g = manualGenerator();
      const supply = new RsaKeySupply(g.generate, { queueLimit: 8, maxWaitMs: 5000, poolCost: 1 });
      const waiting = supply.take(2048);
      jest.advanceTimersByTime(5000);
      await expect(waiting).rejects.toMatchObject({ code: 'rate_limited' });
      expect(supply.pending).toBe(0);
      g.calls[0]?.finish();
      await flush();
      expect(supply.readyCount(2048)).toBe(1);
      supply.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses at once what it would not serve within maxWaitMs at the pace of the last keys', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 32, maxWaitMs: 1000, poolCost: 0 });
    const first = supply.take(2048);
    // a key that takes ~600 ms: the pace the next requests are judged by
    const started = performance.now();
    while (performance.now() - started < 600) await flush();
    g.calls[0]?.finish();
    await first;
    const second = supply.take(2048);
    // one waiter ahead at ~600 ms a key: past 1,000 ms
    await expect(supply.take(2048)).rejects.toMatchObject({ code: 'rate_limited' });
    await flush();
    g.calls[1]?.finish();
    await expect(second).resolves.toBeDefined();
    supply.close();
  });

  it('tells a refused client when the requests ahead should be served (Retry-After)', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 3, maxWaitMs: 60_000, poolCost: 0 });
    const first = supply.take(2048);
    // a key that takes ~600 ms: three waiters ahead then wait ~1.8 s
    const started = performance.now();
    while (performance.now() - started < 600) await flush();
    g.calls[0]?.finish();
    await first;
    const waiting = [supply.take(2048), supply.take(2048), supply.take(2048)];
    const refusal = await supply.take(2048).then(
      () => undefined,
      (e: unknown) => e as { code: string; data: Record<string, unknown> },
    );
    expect(refusal?.code).toBe('rate_limited');
    const seconds = refusal?.data['retry_after_seconds'];
    expect(seconds === 2 || seconds === 3).toBe(true);
    for (let i = 1; i <= 3; i++) {
      await flush();
      g.calls[i]?.finish();
    }
    await Promise.all(waiting);
    supply.close();
  });

  it('admits a request with nobody ahead however slow the last keys were', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 32, maxWaitMs: 300, poolCost: 0 });
    const first = supply.take(2048);
    // a key that took ~400 ms: its own caller was refused at 300 ms; at that pace a request would
    // not be served within maxWaitMs, yet a lone request still waits for its key
    const started = performance.now();
    while (performance.now() - started < 400) await flush();
    await expect(first).rejects.toMatchObject({ code: 'rate_limited' });
    g.calls[0]?.finish();
    await flush();
    const lone = supply.take(2048);
    await flush();
    g.calls[1]?.finish();
    await expect(lone).resolves.toBeDefined();
    supply.close();
  });

  it('fails the waiter whose generation failed and goes on with the next', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 8, maxWaitMs: 60_000, poolCost: 0 });
    const first = supply.take(2048);
    const second = supply.take(2048);
    g.calls[0]?.fail(new Error('RSA key generation failed: boom'));
    await expect(first).rejects.toThrow(/boom/);
    await flush();
    g.calls[1]?.finish();
    await expect(second).resolves.toBeDefined();
    supply.close();
  });

  it('refuses waiters when closed', async () => {
    const g = manualGenerator();
    const supply = new RsaKeySupply(g.generate, { queueLimit: 8, maxWaitMs: 60_000, poolCost: 0 });
    const waiting = supply.take(2048);
    supply.close();
    await expect(waiting).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(supply.take(2048)).rejects.toMatchObject({ code: 'rate_limited' });
  });
});
