import { DomainError } from '@coffer/contracts';
import { AppendLink } from './append-link';
import { ConcurrencyError } from './concurrency';
import { EventStore } from './event-store';
import {
  DIALECTS,
  OPEN_TIMEOUT_MS,
  nextSchema,
  openDialect,
  testRegistry,
  unsealedBarrier,
  written,
  type DialectFixture,
} from './int-spec.fixtures';
import { migrateSchema } from './migrate';

/** Appends decided on an earlier append of their stream before it committed (AppendOptions.after). */
describe.each(DIALECTS)('chained appends on %s', (dialect) => {
  let fx: DialectFixture;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'append_chain');
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  async function newStore(label: string): Promise<EventStore> {
    const schema = nextSchema(label);
    await migrateSchema(fx.handle.db, schema, {});
    return new EventStore({ db: fx.handle.db, schema, cipher: unsealedBarrier(), registry: testRegistry() });
  }

  it('commits a chain submitted at once, in order, each expecting the version its predecessor leaves', async () => {
    const store = await newStore('chain');
    const links = [new AppendLink(), new AppendLink(), new AppendLink()];
    const appends = links.map((link, i) =>
      store.append('s', [written(`p${i}`)], {
        expectedVersion: i,
        link,
        ...(i > 0 ? { after: links[i - 1] } : {}),
      }),
    );
    expect(links.map((l) => l.state)).toEqual(['queued', 'queued', 'queued']);
    const results = await Promise.all(appends);
    expect(results.map((r) => r.version)).toEqual([1, 2, 3]);
    expect(links.map((l) => l.state)).toEqual(['committed', 'committed', 'committed']);
    expect((await store.readStream('s')).map((e) => (e.data as { path: string }).path)).toEqual([
      'p0',
      'p1',
      'p2',
    ]);
    expect((await store.verifyChain()).ok).toBe(true);
  });

  it('fails an append whose predecessor failed, even when its own expected version matches', async () => {
    const store = await newStore('orphan');
    await store.append('s', [written('first')], { expectedVersion: 0 });
    const a = new AppendLink();
    // a expects 0 but the stream is at 1; b was decided on a (expects 1): b must not commit
    const results = await Promise.allSettled([
      store.append('s', [written('a')], { expectedVersion: 0, link: a }),
      store.append('s', [written('b')], { expectedVersion: 1, after: a }),
      store.append('other', [written('c')], { expectedVersion: 0 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    for (const r of results.slice(0, 2)) {
      expect(r.status === 'rejected' && r.reason).toBeInstanceOf(ConcurrencyError);
    }
    expect(a.state).toBe('failed');
    expect(await store.streamVersion('s')).toBe(1);
  });

  it('fails the followers of an append whose projection threw, and keeps its error', async () => {
    const store = await newStore('projection');
    const a = new AppendLink();
    const results = await Promise.allSettled([
      store.append('s', [written('a')], {
        expectedVersion: 0,
        link: a,
        project: () => Promise.reject(new DomainError('invalid_request', 'refused by the read model')),
      }),
      store.append('s', [written('b')], { expectedVersion: 1, after: a }),
      store.append('other', [written('c')], { expectedVersion: 0 }),
    ]);
    expect(results[0]?.status === 'rejected' && results[0].reason).toBeInstanceOf(DomainError);
    expect(results[1]?.status === 'rejected' && results[1].reason).toBeInstanceOf(ConcurrencyError);
    expect(results[2]?.status).toBe('fulfilled');
    expect(await store.streamVersion('s')).toBe(0);
  });

  it('fails an append submitted after its predecessor already failed', async () => {
    const store = await newStore('late');
    const a = new AppendLink();
    await expect(store.append('s', [written('a')], { expectedVersion: 3, link: a })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(store.append('s', [written('b')], { expectedVersion: 0, after: a })).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    // a committed predecessor is no obstacle
    const c = new AppendLink();
    await store.append('s', [written('c')], { expectedVersion: 0, link: c });
    expect(c.state).toBe('committed');
    await expect(store.append('s', [written('d')], { expectedVersion: 1, after: c })).resolves.toMatchObject({
      version: 2,
    });
  });
});
