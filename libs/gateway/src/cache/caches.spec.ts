import { CachedValue } from '@coffer/transport';
import { KeyedCache } from './keyed-cache';

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('CachedValue', () => {
  it('shares one load, caches it and reloads after invalidation or max age', async () => {
    let now = 0;
    let loads = 0;
    const value = new CachedValue(
      async () => ++loads,
      1000,
      () => now,
    );
    expect(await Promise.all([value.get(), value.get()])).toEqual([1, 1]);
    expect(await value.get()).toBe(1);
    value.invalidate();
    expect(await value.get()).toBe(2);
    now = 1000;
    expect(await value.get()).toBe(3);
    expect(value.peek()).toBe(3);
  });

  it('does not cache a load that was running when invalidated', async () => {
    const gate = deferred<string>();
    let loads = 0;
    const value = new CachedValue(async () => (++loads === 1 ? gate.promise : 'fresh'), 10_000);
    const first = value.get();
    value.invalidate();
    gate.resolve('stale');
    expect(await first).toBe('stale');
    expect(await value.get()).toBe('fresh');
  });

  it('does not cache failures', async () => {
    let loads = 0;
    const value = new CachedValue(async () => {
      if (++loads === 1) throw new Error('down');
      return 'up';
    }, 10_000);
    await expect(value.get()).rejects.toThrow('down');
    expect(await value.get()).toBe('up');
  });
});

describe('KeyedCache', () => {
  it('caches per key for the TTL the value asks for', async () => {
    let now = 0;
    const cache = new KeyedCache<string, number>(10, () => now);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load, () => 100)).toBe(1);
    expect(await cache.get('a', load, () => 100)).toBe(1);
    now = 100;
    expect(await cache.get('a', load, () => 100)).toBe(2);
    expect(await cache.get('b', load, () => 0)).toBe(3);
    expect(await cache.get('b', load, () => 0)).toBe(4);
  });

  it('drops the oldest entries beyond the bound', async () => {
    const cache = new KeyedCache<number, number>(2);
    for (const k of [1, 2, 3]) cache.set(k, k, 1000);
    expect(cache.peek(1)).toBeUndefined();
    expect(cache.peek(3)).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('does not cache loads running during delete, clear or cancelLoads', async () => {
    for (const invalidate of [
      (c: KeyedCache<string, string>) => c.delete('k'),
      (c: KeyedCache<string, string>) => c.clear(),
      (c: KeyedCache<string, string>) => c.cancelLoads(),
    ]) {
      const cache = new KeyedCache<string, string>(10);
      const gate = deferred<string>();
      const first = cache.get(
        'k',
        () => gate.promise,
        () => 1000,
      );
      invalidate(cache);
      gate.resolve('stale');
      expect(await first).toBe('stale');
      expect(
        await cache.get(
          'k',
          async () => 'fresh',
          () => 1000,
        ),
      ).toBe('fresh');
    }
  });
});
