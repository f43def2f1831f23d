import type { AnyDb } from '@coffer/event-store';
import { KvDb } from './kv.table';
import { isSecretStream, KvReadFence } from './read-fence';
import { StreamCache } from './stream-cache';

interface HeadRow {
  head: number;
  streams: string[] | null;
  /** the replica log beside kv's own (a secondary's copy of the primary's rows): 0 when absent */
  replica_head?: number;
  replica_streams?: string[] | null;
}

/** A fence over a fake pool: each check answers the next queued head row (or waits for one). */
function harness(soleWriter = false) {
  const answers: HeadRow[] = [];
  const waiting: Array<(row: HeadRow) => void> = [];
  let checks = 0;
  const db = {
    executeQuery: () => {
      checks++;
      const next = answers.shift();
      if (next) return Promise.resolve({ rows: [next] });
      return new Promise((resolve) => waiting.push((row) => resolve({ rows: [row] })));
    },
  } as unknown as AnyDb;
  const fence = new KvReadFence(new KvDb({ db, schema: 'kv' }), { soleWriter });
  const cache = new StreamCache<string>(fence, (row) => row.length);
  return {
    fence,
    cache,
    /** the next check(s) will see this head */
    commit: (row: HeadRow) => {
      const w = waiting.shift();
      if (w) w(row);
      else answers.push(row);
    },
    checks: () => checks,
  };
}

describe('isSecretStream', () => {
  it('is true for one key or one cubbyhole secret, false for streams touching many secrets', () => {
    expect(isSecretStream('kv/7f0c/app/db')).toBe(true);
    expect(isSecretStream('cubbyhole/ref_-x/7f0c/a/b')).toBe(true);
    expect(isSecretStream('cubbyhole/ref_-x')).toBe(false);
    expect(isSecretStream('kv-config/7f0c')).toBe(false);
    expect(isSecretStream('kv-mount/7f0c')).toBe(false);
  });
});

describe('KvReadFence and StreamCache', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.fence.onModuleDestroy());

  const read = (stream: string, value: string) => h.cache.read(stream, '0', async () => value);

  it('serves a cached row until an event of its stream is committed, and only that stream is dropped', async () => {
    h.commit({ head: 5, streams: null });
    expect(await read('kv/m/a', 'a1')).toBe('a1');
    h.commit({ head: 5, streams: null });
    expect(await read('kv/m/b', 'b1')).toBe('b1');
    h.commit({ head: 5, streams: null });
    expect(await read('kv/m/a', 'a2')).toBe('a1');
    h.commit({ head: 6, streams: ['kv/m/a'] });
    expect(await read('kv/m/a', 'a2')).toBe('a2');
    h.commit({ head: 6, streams: null });
    expect(await read('kv/m/b', 'b2')).toBe('b1');
  });

  it('drops everything on a stream of many secrets, or when too many events were committed', async () => {
    h.commit({ head: 1, streams: null });
    await read('kv/m/a', 'a1');
    h.commit({ head: 2, streams: ['cubbyhole/ref'] });
    expect(await read('kv/m/a', 'a2')).toBe('a2');
    h.commit({ head: 5000, streams: null });
    expect(await read('kv/m/a', 'a3')).toBe('a3');
    expect(h.cache.size).toBe(1);
  });

  it("drops what the primary's rows change as they arrive in the replica log, its own writes likewise", async () => {
    h.commit({ head: 3, streams: null, replica_head: 10 });
    expect(await read('kv/m/a', 'a1')).toBe('a1');
    h.commit({ head: 3, streams: null, replica_head: 10 });
    expect(await read('kv/m/b', 'b1')).toBe('b1');
    // a replayed batch: only the replica log's head moved
    h.commit({ head: 3, streams: null, replica_head: 12, replica_streams: ['kv/m/a'] });
    expect(await read('kv/m/a', 'a2')).toBe('a2');
    h.commit({ head: 3, streams: null, replica_head: 12 });
    expect(await read('kv/m/b', 'b2')).toBe('b1');
    // both logs moved (a local write next to a replayed one): each one's streams are dropped
    h.commit({ head: 4, streams: ['kv/m/b'], replica_head: 13, replica_streams: ['kv/m/c'] });
    expect(await read('kv/m/b', 'b3')).toBe('b3');
    h.commit({ head: 4, streams: null, replica_head: 13 });
    expect(await read('kv/m/a', 'a3')).toBe('a2');
    h.commit({ head: 4, streams: null, replica_head: 13 });
    expect(await read('kv/m/b', 'b4')).toBe('b3');
    // a replicated mount's purge changes many secrets: everything goes
    h.commit({ head: 4, streams: null, replica_head: 14, replica_streams: ['kv-mount/m'] });
    expect(await read('kv/m/a', 'a4')).toBe('a4');
    // the replica log cleared (a wipe) while the own log moved on: everything goes
    h.commit({ head: 4, streams: null, replica_head: 14 });
    expect(await read('kv/m/b', 'b5')).toBe('b5');
    h.commit({ head: 20, streams: ['kv/m/x'], replica_head: 0 });
    expect(await read('kv/m/b', 'b6')).toBe('b6');
  });

  it('does not keep a load that raced with a replayed batch of its stream', async () => {
    h.commit({ head: 1, streams: null, replica_head: 5 });
    let finishLoad!: (value: string) => void;
    const slow = h.cache.read('kv/m/a', '0', () => new Promise<string>((resolve) => (finishLoad = resolve)));
    await new Promise((resolve) => setImmediate(resolve));
    h.commit({ head: 1, streams: null, replica_head: 6, replica_streams: ['kv/m/a'] });
    expect(await read('kv/m/other', 'o')).toBe('o');
    finishLoad('a-before-the-batch');
    expect(await slow).toBe('a-before-the-batch');
    h.commit({ head: 1, streams: null, replica_head: 6 });
    expect(await read('kv/m/a', 'a-after')).toBe('a-after');
  });

  it('caches a not-found answer until the stream is written', async () => {
    h.commit({ head: 1, streams: null });
    expect(await h.cache.read('kv/m/x', '0', async () => undefined)).toBeUndefined();
    h.commit({ head: 1, streams: null });
    expect(await h.cache.read('kv/m/x', '0', async () => 'never loaded')).toBeUndefined();
    h.commit({ head: 2, streams: ['kv/m/x'] });
    expect(await h.cache.read('kv/m/x', '0', async () => 'x1')).toBe('x1');
  });

  it('does not keep a load that raced with a check which dropped its stream', async () => {
    h.commit({ head: 1, streams: null });
    let finishLoad!: (value: string) => void;
    const slow = h.cache.read('kv/m/a', '0', () => new Promise<string>((resolve) => (finishLoad = resolve)));
    await new Promise((resolve) => setImmediate(resolve));
    // another reader's check sees a write of the stream while the load is running
    h.commit({ head: 2, streams: ['kv/m/a'] });
    expect(await read('kv/m/other', 'o')).toBe('o');
    finishLoad('a-before-the-write');
    expect(await slow).toBe('a-before-the-write');
    h.commit({ head: 2, streams: null });
    expect(await read('kv/m/a', 'a-after')).toBe('a-after');
  });

  it('a read arriving while a check runs waits for a check that starts after it', async () => {
    const first = h.fence.sync();
    const second = h.fence.sync();
    await new Promise((resolve) => setImmediate(resolve));
    // the reads of one turn share one check
    expect(h.checks()).toBe(1);
    const third = h.fence.sync();
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.checks()).toBe(2);
    h.commit({ head: 1, streams: null });
    expect(await first).toBe(1);
    expect(await second).toBe(1);
    // the later check sees the later commit
    h.commit({ head: 2, streams: ['kv/m/a'] });
    expect(await third).toBe(2);
  });

  it('as the sole writer, checks the database only after an append of this process started or settled', async () => {
    h.fence.onModuleDestroy();
    h = harness(true);
    h.commit({ head: 3, streams: null });
    expect(await read('kv/m/a', 'a1')).toBe('a1');
    expect(await read('kv/m/a', 'a2')).toBe('a1');
    expect(h.checks()).toBe(1);
    h.fence.appendStartedOrSettled();
    h.commit({ head: 4, streams: ['kv/m/a'] });
    expect(await read('kv/m/a', 'a2')).toBe('a2');
    expect(h.checks()).toBe(2);
    // an append that settles after the check started is noticed by the next read
    h.fence.appendStartedOrSettled();
    h.commit({ head: 5, streams: ['kv/m/a'] });
    expect(await read('kv/m/a', 'a3')).toBe('a3');
    expect(await read('kv/m/a', 'a4')).toBe('a3');
    expect(h.checks()).toBe(3);
  });

  it('keeps within its byte budget: the streams cached first go, an oversized row is never kept', async () => {
    const small = new StreamCache<string>(h.fence, (row) => row.length, {
      maxStreams: 100,
      maxBytes: 10,
      maxRowBytes: 6,
    });
    const readSmall = (stream: string, value: string) => small.read(stream, '0', async () => value);
    for (let i = 0; i < 6; i++) h.commit({ head: 1, streams: null });
    await readSmall('kv/m/a', 'aaaa');
    await readSmall('kv/m/b', 'bbbb');
    expect(small.size).toBe(2);
    await readSmall('kv/m/c', 'cccc');
    expect(small.size).toBe(2);
    expect(await readSmall('kv/m/a', 'a-reloaded')).toBe('a-reloaded');
    await readSmall('kv/m/big', 'x'.repeat(7));
    expect(await readSmall('kv/m/big', 'reloaded')).toBe('reloaded');
  });
});
