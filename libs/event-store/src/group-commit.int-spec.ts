import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { DomainError } from '@coffer/contracts';
import { ConcurrencyError } from './concurrency';
import { EventStore } from './event-store';
import { MAX_BATCH_APPENDS } from './group-commit';
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
import { pgTypeParsers } from './type-parsers';
import type { AnyDb, AnyTrx, AppendedEvent, AppendResult } from './event-store-types';

/** Read model of these tests: one row per stream, with the version its projection last saw. */
const readModel = {
  '0001_read_model': {
    up: async (m: AnyDb) => {
      await sql`create table seen (stream text primary key, version int8 not null, hits int8 not null)`.execute(
        m,
      );
    },
  },
};

const settledAll = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
const reason = (r: PromiseSettledResult<unknown>): unknown =>
  r.status === 'rejected' ? r.reason : undefined;
const value = <T>(r: PromiseSettledResult<T>): T => {
  if (r.status !== 'fulfilled') throw new Error(`expected fulfilled, got ${String(r.reason)}`);
  return r.value;
};

describe.each(DIALECTS)('group commit on %s', (dialect) => {
  let fx: DialectFixture;
  let db: AnyDb;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'group_commit');
    db = fx.handle.db;
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  async function newStore(label: string, extra: Parameters<typeof migrateSchema>[2] = readModel) {
    const schema = nextSchema(label);
    await migrateSchema(db, schema, extra);
    const store = new EventStore({ db, schema, cipher: unsealedBarrier(), registry: testRegistry() });
    const project = async (trx: AnyTrx, events: AppendedEvent[]) => {
      const last = events[events.length - 1]!;
      await sql`insert into ${sql.table(`${schema}.seen`)} (stream, version, hits) values (${last.stream}, ${last.streamVersion}, 1)
                on conflict (stream) do update set version = excluded.version, hits = seen.hits + 1`.execute(
        trx,
      );
      return last.streamVersion;
    };
    /** the log with the transaction each row committed in */
    const log = async () =>
      (
        await sql<{ wal: number; stream: string; version: number; tx: string }>`
          select wal, stream, stream_version as version, xmin::text as tx
            from ${sql.table(`${schema}.event_log`)} order by wal`.execute(db)
      ).rows;
    const seen = async () =>
      (
        await sql<{ stream: string; version: number; hits: number }>`
          select stream, version, hits from ${sql.table(`${schema}.seen`)} order by stream`.execute(db)
      ).rows;
    return { schema, store, project, log, seen };
  }

  it('commits concurrent appends across streams in one transaction, gap-free and chained', async () => {
    const { store, project, log } = await newStore('many');
    const total = MAX_BATCH_APPENDS + 44;
    const results = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        store.append(`m/${i % 17}`, [written(`p${i}`)], { expectedVersion: 'any', project }),
      ),
    );
    const rows = await log();
    expect(rows.map((r) => r.wal)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // submitted in one tick: one full batch, then the rest, each one transaction
    expect(new Set(rows.slice(0, MAX_BATCH_APPENDS).map((r) => r.tx)).size).toBe(1);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(2);
    // WAL order is submission order, and each caller got its own row
    results.forEach((r, i) => {
      expect(r.lastWal).toBe(i + 1);
      expect(r.events).toHaveLength(1);
      expect(r.events[0]).toMatchObject({ wal: i + 1, stream: `m/${i % 17}`, data: { path: `p${i}` } });
      expect(r.version).toBe(Math.floor(i / 17) + 1);
      expect(r.projected).toBe(r.version);
    });
    expect(await store.verifyChain()).toMatchObject({ ok: true, checked: total, lastWal: total });
    expect((await store.readFrom(0, 1000)).map((e) => e.hash)).toEqual(results.map((r) => r.events[0]!.hash));
  });

  it('rejects only the appends whose projection fails; the rest of the batch commits', async () => {
    const { schema, store, project, log, seen } = await newStore('failing');
    const boom = new Error('projection failed');
    const outcomes = await settledAll<AppendResult<number>>([
      store.append('f/a', [written('a')], { expectedVersion: 0, project }),
      store.append('f/b', [written('b')], {
        expectedVersion: 0,
        project: async (trx, events) => {
          await project(trx, events);
          throw boom;
        },
      }),
      // a failing statement aborts the transaction, not just the projection
      store.append('f/c', [written('c')], {
        expectedVersion: 0,
        project: async (trx) => {
          await sql`insert into ${sql.table(`${schema}.seen`)} (stream, version, hits) values ('f/a', 1, 1)`.execute(
            trx,
          );
          return 0;
        },
      }),
      store.append('f/d', [written('d')], { expectedVersion: 0, project }),
    ]);
    expect(value(outcomes[0]!)).toMatchObject({ version: 1, lastWal: 1, projected: 1 });
    expect(reason(outcomes[1]!)).toBe(boom);
    expect(reason(outcomes[2]!)).toMatchObject({ code: '23505' });
    expect(value(outcomes[3]!)).toMatchObject({ version: 1, lastWal: 2, projected: 1 });

    const rows = await log();
    expect(rows.map((r) => [r.wal, r.stream])).toEqual([
      [1, 'f/a'],
      [2, 'f/d'],
    ]);
    expect(rows[0]!.tx).toBe(rows[1]!.tx);
    expect(await seen()).toEqual([
      { stream: 'f/a', version: 1, hits: 1 },
      { stream: 'f/d', version: 1, hits: 1 },
    ]);
    expect(await store.verifyChain()).toMatchObject({ ok: true, lastWal: 2 });
  });

  it('hands a DomainError thrown by a projection to its caller unchanged', async () => {
    const { store, project } = await newStore('domain');
    const denied = new DomainError('permission_denied', 'permission denied');
    const refuse = async (): Promise<number> => {
      throw denied;
    };
    // alone in its batch, and among others
    await expect(store.append('d/1', [written('x')], { expectedVersion: 0, project: refuse })).rejects.toBe(
      denied,
    );
    const [ok, refused] = await settledAll([
      store.append('d/2', [written('x')], { expectedVersion: 0, project }),
      store.append('d/3', [written('x')], { expectedVersion: 0, project: refuse }),
    ]);
    expect(value(ok!).lastWal).toBe(1);
    expect(reason(refused!)).toBe(denied);
  });

  it('lets exactly one of two same-stream appends expecting version 0 win', async () => {
    const { store, project, log } = await newStore('race');
    const [first, second, third] = await settledAll([
      store.append('r', [written('one')], { expectedVersion: 0, project }),
      store.append('r', [written('two')], { expectedVersion: 0, project }),
      // checked against the batch so far: the first append made the stream version 1
      store.append('r', [written('three')], { expectedVersion: 1, project }),
    ]);
    expect(value(first!)).toMatchObject({ version: 1, lastWal: 1 });
    const conflict = reason(second!);
    expect(conflict).toBeInstanceOf(ConcurrencyError);
    expect(conflict).toMatchObject({ stream: 'r', expectedVersion: 0, actualVersion: 1 });
    expect(value(third!)).toMatchObject({ version: 2, lastWal: 2 });
    expect((await log()).map((r) => [r.wal, r.version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect((await store.readStream('r')).map((e) => (e.data as { path: string }).path)).toEqual([
      'one',
      'three',
    ]);
  });

  it('appends same-stream appends with "any" in submission order', async () => {
    const { store, project, log, seen } = await newStore('ordered');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.append('o', [written(`${i}a`), written(`${i}b`)], { expectedVersion: 'any', project }),
      ),
    );
    expect(results.map((r) => [r.version, r.lastWal, r.projected])).toEqual(
      results.map((_, i) => [2 * i + 2, 2 * i + 2, 2 * i + 2]),
    );
    expect((await store.readStream('o')).map((e) => (e.data as { path: string }).path)).toEqual(
      results.flatMap((_, i) => [`${i}a`, `${i}b`]),
    );
    expect(new Set((await log()).map((r) => r.tx)).size).toBe(1);
    expect(await seen()).toEqual([{ stream: 'o', version: 24, hits: 12 }]);
  });

  it('returns the stream version and the log head for an append without events', async () => {
    const { store } = await newStore('empty');
    const [a, none] = await Promise.all([
      store.append('e/a', [written('a')], { expectedVersion: 0 }),
      store.append('e/a', [], { expectedVersion: 1, project: async (_trx, events) => events.length }),
    ]);
    expect(a).toMatchObject({ version: 1, lastWal: 1 });
    expect(none).toEqual({ events: [], version: 1, lastWal: 1, projected: 0 });
  });

  it('retries each append alone when the batch fails outside the projections', async () => {
    const { store, project, log } = await newStore('poison', {
      ...readModel,
      '0002_poison': {
        up: async (m: AnyDb) => {
          await sql`create function refuse_poison() returns trigger language plpgsql as $$
                      begin
                        if new.stream = 'poison' then raise exception 'poison refused'; end if;
                        return new;
                      end $$`.execute(m);
          await sql`create trigger refuse_poison before insert on event_log
                      for each row execute function refuse_poison()`.execute(m);
        },
      },
    });
    const [before, poison, after] = await settledAll([
      store.append('ok/1', [written('1')], { expectedVersion: 0, project }),
      store.append('poison', [written('p')], { expectedVersion: 0, project }),
      store.append('ok/2', [written('2')], { expectedVersion: 0, project }),
    ]);
    expect(value(before!).lastWal).toBe(1);
    expect(reason(poison!)).toMatchObject({ message: expect.stringContaining('poison refused') });
    expect(value(after!).lastWal).toBe(2);
    const rows = await log();
    expect(rows.map((r) => r.stream)).toEqual(['ok/1', 'ok/2']);
    expect(rows[0]!.tx).not.toBe(rows[1]!.tx);
    expect((await store.verifyChain()).ok).toBe(true);
  });

  it('fails every append of a batch whose COMMIT fails and appends none of them', async () => {
    const { schema, store, project } = await newStore('commit', {
      ...readModel,
      '0002_commit_guard': {
        up: async (m: AnyDb) => {
          await sql`create table commit_guard (id int8)`.execute(m);
          await sql`create function refuse_commit() returns trigger language plpgsql as $$
                      begin raise exception 'commit refused'; end $$`.execute(m);
          await sql`create constraint trigger refuse_commit after insert on commit_guard
                      deferrable initially deferred for each row execute function refuse_commit()`.execute(m);
        },
      },
    });
    const outcomes = await settledAll<AppendResult<unknown>>([
      store.append('c/1', [written('1')], { expectedVersion: 0 }),
      store.append('c/2', [written('2')], {
        expectedVersion: 0,
        project: async (trx) => {
          await sql`insert into ${sql.table(`${schema}.commit_guard`)} (id) values (1)`.execute(trx);
        },
      }),
      store.append('c/3', [written('3')], { expectedVersion: 0, project }),
    ]);
    for (const o of outcomes)
      expect(reason(o)).toMatchObject({ message: expect.stringContaining('commit refused') });
    expect(await store.head()).toMatchObject({ lastWal: 0 });
    expect((await store.append('c/1', [written('1')], { expectedVersion: 0 })).lastWal).toBe(1);
  });
});

describe('group commit across replicas on pg', () => {
  let fx: DialectFixture;
  beforeAll(async () => {
    fx = await openDialect('pg', 'group_commit_replicas');
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  it('never deadlocks two replicas appending to overlapping streams and keeps the WAL gap-free', async () => {
    const schema = nextSchema('replicas');
    await migrateSchema(fx.handle.db, schema, readModel);
    const cipher = unsealedBarrier();
    // each replica is its own pool (so its own committer), logging every failed statement
    const failures: unknown[] = [];
    const pools = [0, 1].map(() => {
      const pool = new Pool({ connectionString: fx.testDb!.url, max: 4, types: pgTypeParsers });
      // an idle client losing its connection must fail the test, not crash the jest process
      pool.on('error', (error) => failures.push(error));
      return pool;
    });
    const replicas = pools.map(
      (pool) =>
        new Kysely<unknown>({
          dialect: new PostgresDialect({ pool }),
          log: (event) => {
            if (event.level === 'error') failures.push(event.error);
          },
        }),
    );
    try {
      const stores = replicas.map((r) => new EventStore({ db: r, schema, cipher, registry: testRegistry() }));
      const project = async (trx: AnyTrx, events: AppendedEvent[]) => {
        const last = events[events.length - 1]!;
        await sql`insert into ${sql.table(`${schema}.seen`)} (stream, version, hits) values (${last.stream}, ${last.streamVersion}, 1)
                  on conflict (stream) do update set version = excluded.version, hits = seen.hits + 1`.execute(
          trx,
        );
      };
      const streams = Array.from({ length: 24 }, (_, i) => `shared/${i}`);
      const rounds = 12;
      // one replica submits the streams in ascending order, the other in descending order: with
      // locks taken in submission order their batches would deadlock
      await Promise.all(
        stores.map(async (store, r) => {
          const order = r === 0 ? streams : [...streams].reverse();
          for (let round = 0; round < rounds; round++) {
            await Promise.all(
              order.map((s) =>
                store.append(s, [written(`${r}-${round}`)], { expectedVersion: 'any', project }),
              ),
            );
          }
        }),
      );
      expect(failures).toEqual([]);
      const total = 2 * rounds * streams.length;
      const log = await stores[0]!.readFrom(0, total + 1);
      expect(log.map((e) => e.wal)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      for (const s of streams) {
        const versions = log.filter((e) => e.stream === s).map((e) => e.streamVersion);
        expect(versions).toEqual(Array.from({ length: 2 * rounds }, (_, i) => i + 1));
      }
      const seen = await fx.handle.db
        .withSchema(schema)
        .selectFrom('seen')
        .select(['version', 'hits'])
        .execute();
      expect(seen).toHaveLength(streams.length);
      for (const row of seen) expect(row).toEqual({ version: 2 * rounds, hits: 2 * rounds });
      expect(await stores[1]!.verifyChain()).toMatchObject({ ok: true, checked: total });
    } finally {
      await Promise.all(replicas.map((r) => r.destroy()));
    }
  });
});
