import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { DomainError } from '@coffer/contracts';
import { Barrier } from '@coffer/barrier';
import { waitFor } from '@coffer/testing';
import { ConcurrencyError, retryOnConflict } from './concurrency';
import { EventStore } from './event-store';
import { migrateSchema } from './migrate';
import { EventSchemaError } from './event-registry';
import {
  DIALECTS,
  OPEN_TIMEOUT_MS,
  nextSchema,
  openDialect,
  SecretDeleted,
  SecretWritten,
  testRegistry,
  unsealedBarrier,
  type DialectFixture,
} from './int-spec.fixtures';
import type { AnyDb, AnyTrx, AppendedEvent, StoredEvent } from './event-store-types';

const written = (path: string, value = 'v') => SecretWritten.create({ path, value, size: value.length });

describe.each(DIALECTS)('EventStore on %s', (dialect) => {
  let fx: DialectFixture;
  let db: AnyDb;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'event_store');
    db = fx.handle.db;
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  async function newStore(label: string, extra: Parameters<typeof migrateSchema>[2] = {}) {
    const schema = nextSchema(label);
    await migrateSchema(db, schema, extra);
    const cipher = unsealedBarrier();
    return { schema, cipher, store: new EventStore({ db, schema, cipher, registry: testRegistry() }) };
  }

  it('appends and reads streams, the log and its head', async () => {
    const { store } = await newStore('basic');
    const r1 = await store.append('secret/m1/a', [written('a', 'one'), written('a', 'two')], {
      expectedVersion: 0,
    });
    expect(r1).toMatchObject({ version: 2, lastWal: 2, projected: undefined });
    expect(r1.events.map((e) => [e.wal, e.streamVersion])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    const r2 = await store.append('secret/m1/b', [SecretDeleted.create({ path: 'b' })], {
      expectedVersion: 'any',
    });
    expect(r2).toMatchObject({ version: 1, lastWal: 3 });

    const stream = await store.readStream('secret/m1/a');
    expect(stream.map((e) => e.data)).toEqual([
      { path: 'a', value: 'one', size: 3 },
      { path: 'a', value: 'two', size: 3 },
    ]);
    expect(stream[0]!.recordedAt).toBeInstanceOf(Date);
    expect(SecretWritten.is(stream[0]!)).toBe(true);
    expect(await store.readStream('secret/m1/a', 2)).toHaveLength(1);
    expect(await store.readStream('nope')).toEqual([]);
    expect(await store.streamVersion('secret/m1/a')).toBe(2);

    const log = await store.readFrom(0, 10);
    expect(log.map((e) => [e.wal, e.stream, e.type])).toEqual([
      [1, 'secret/m1/a', 'SecretWritten'],
      [2, 'secret/m1/a', 'SecretWritten'],
      [3, 'secret/m1/b', 'SecretDeleted'],
    ]);
    expect((await store.readFrom(1, 1)).map((e) => e.wal)).toEqual([2]);
    expect(await store.head()).toEqual({ lastWal: 3, hash: log[2]!.hash });
  });

  it('enforces optimistic concurrency per stream', async () => {
    const { store } = await newStore('occ');
    await store.append('s', [written('x')], { expectedVersion: 0 });
    const err = await store.append('s', [written('x')], { expectedVersion: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConcurrencyError);
    expect(err).toMatchObject({ stream: 's', expectedVersion: 0, actualVersion: 1 });

    // ten writers race from the same read: exactly one wins
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => store.append('s', [written('x')], { expectedVersion: 1 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyError);

    // re-reading and retrying lets all of them through
    await Promise.all(
      Array.from({ length: 5 }, () =>
        retryOnConflict(
          async () => {
            const version = await store.streamVersion('s');
            return store.append('s', [written('x')], { expectedVersion: version });
          },
          { attempts: 20 },
        ),
      ),
    );
    expect(await store.streamVersion('s')).toBe(7);
    expect((await store.verifyChain()).ok).toBe(true);
  });

  it('runs the projection in the same transaction; a throwing projection leaves nothing', async () => {
    const { schema, store } = await newStore('proj', {
      '0001_read_model': {
        up: async (m) => {
          await m.schema
            .createTable('secrets')
            .addColumn('path', 'text', (c) => c.primaryKey())
            .execute();
        },
      },
    });
    const project = async (trx: AnyTrx, events: AppendedEvent[]) => {
      for (const e of events) {
        await trx
          .withSchema(schema)
          .insertInto('secrets')
          .values({ path: (e.data as { path: string }).path })
          .execute();
      }
      return events.length;
    };
    const ok = await store.append('p/1', [written('one')], { expectedVersion: 0, project });
    expect(ok.projected).toBe(1);

    const failing = store.append('p/2', [written('two')], {
      expectedVersion: 0,
      project: async (trx, events) => {
        await project(trx, events);
        throw new Error('projection failed');
      },
    });
    await expect(failing).rejects.toThrow('projection failed');
    // a duplicate key in the read model fails the same way
    await expect(store.append('p/3', [written('one')], { expectedVersion: 0, project })).rejects.toThrow();

    const paths = await db.withSchema(schema).selectFrom('secrets').select('path').execute();
    expect(paths.map((r) => r.path)).toEqual(['one']);
    expect(await store.readStream('p/2')).toEqual([]);
    const next = await store.append('p/4', [written('four')], { expectedVersion: 0, project });
    expect(next.lastWal).toBe(2); // the rolled back appends consumed no WAL number
  });

  it('gives 200 concurrent appends from several connections WAL 1..200 without gaps', async () => {
    const { schema, cipher } = await newStore('concurrent');
    const second = fx.openAnother().db;
    const stores = [db, second].map(
      (d) => new EventStore({ db: d, schema, cipher, registry: testRegistry() }),
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 220 }, (_, i) =>
        stores[i % 2]!.append(`c/${i % 13}`, [written(`p${i}`)], {
          expectedVersion: 'any',
          // every 11th transaction rolls back after its projection ran
          project: async () => {
            if (i % 11 === 10) throw new Error('rollback');
          },
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(200);
    const log = await stores[0]!.readFrom(0, 1000);
    expect(log.map((e) => e.wal)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const perStream = new Map<string, number[]>();
    for (const e of log) perStream.set(e.stream, [...(perStream.get(e.stream) ?? []), e.streamVersion]);
    for (const versions of perStream.values()) expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect(await stores[1]!.verifyChain()).toMatchObject({ ok: true, checked: 200, lastWal: 200 });
  });

  it('never lets a follower skip an append that commits late', async () => {
    const { schema, cipher, store } = await newStore('follow');
    // On pg the fast appends come from another replica (its own pool, so its own committer) and
    // commit while the slow append's batch is still open. On PGlite (one connection) they queue.
    const replica = new EventStore({ db: fx.openAnother().db, schema, cipher, registry: testRegistry() });
    const seen: StoredEvent[] = [];
    let following = true;
    const follower = (async () => {
      while (following || seen.length < 11) {
        const batch = await store.readFrom(seen.at(-1)?.wal ?? 0, 3);
        seen.push(...batch);
        if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let slowStarted = false;
    const slow = store.append('slow', [written('slow')], {
      expectedVersion: 0,
      project: async () => {
        slowStarted = true;
        await gate;
      },
    });
    await waitFor(() => slowStarted);
    const fast = Array.from({ length: 10 }, (_, i) =>
      replica.append(`fast/${i}`, [written('fast')], { expectedVersion: 0 }),
    );
    if (dialect === 'pg') {
      // the fast appends commit while the slow one is still open, and the follower reads them
      await Promise.all(fast);
      await waitFor(() => seen.length === 10, { timeoutMs: 5000 });
    }
    release();
    const slowResult = await slow;
    await Promise.all(fast);
    following = false;
    await follower;

    expect(seen.map((e) => e.wal)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(seen.filter((e) => e.stream === 'slow')).toHaveLength(1);
    if (dialect === 'pg') expect(slowResult.lastWal).toBe(11);
  });

  it('verifies the hash chain and detects tampering', async () => {
    const { schema, store } = await newStore('chain');
    for (let i = 0; i < 6; i++)
      await store.append(`h/${i % 2}`, [written(`v${i}`)], { expectedVersion: 'any' });
    const verified = await store.verifyChain();
    expect(verified).toEqual({ ok: true, checked: 6, lastWal: 6, hash: (await store.head()).hash });
    expect(await store.verifyChain(3, 5)).toMatchObject({ ok: true, checked: 3, lastWal: 5 });

    const log = db.withSchema(schema);
    await log.updateTable('event_log').set({ type: 'SecretDeleted' }).where('wal', '=', 4).execute();
    expect(await store.verifyChain()).toMatchObject({
      ok: false,
      wal: 4,
      reason: 'hash_mismatch',
      checked: 3,
    });
    await log.updateTable('event_log').set({ type: 'SecretWritten' }).where('wal', '=', 4).execute();

    // swapping two payloads breaks both the chain and decryption (aad binds the row)
    const [p2, p3] = await Promise.all(
      [2, 3].map((wal) =>
        log.selectFrom('event_log').select('payload').where('wal', '=', wal).executeTakeFirstOrThrow(),
      ),
    );
    await log.updateTable('event_log').set({ payload: p3!.payload }).where('wal', '=', 2).execute();
    expect(await store.verifyChain()).toMatchObject({ ok: false, wal: 2, reason: 'hash_mismatch' });
    await expect(store.readFrom(1, 1)).rejects.toThrow(
      new DomainError('internal', 'barrier: message authentication failed'),
    );
    await log.updateTable('event_log').set({ payload: p2!.payload }).where('wal', '=', 2).execute();
    expect((await store.verifyChain()).ok).toBe(true);

    await log.deleteFrom('event_log').where('wal', '=', 5).execute();
    expect(await store.verifyChain()).toMatchObject({ ok: false, wal: 5, reason: 'gap' });
  });

  it('validates events against the registry and refuses to write while sealed', async () => {
    const { schema, store } = await newStore('registry');
    await expect(
      store.append('r', [{ type: 'Unknown', version: 1, data: {} }], { expectedVersion: 0 }),
    ).rejects.toThrow(EventSchemaError);
    const bad = (await store
      .append(
        'r',
        [{ type: 'SecretWritten', version: 1, data: { path: 'p', value: 'TOPSECRET', size: 'x' } }],
        {
          expectedVersion: 0,
        },
      )
      .catch((e: unknown) => e)) as Error;
    expect(bad).toBeInstanceOf(EventSchemaError);
    expect(bad.message).toContain('size');
    expect(bad.message).not.toContain('TOPSECRET');

    const sealed = new EventStore({ db, schema, cipher: new Barrier(), registry: testRegistry() });
    await expect(sealed.append('r', [written('x')], { expectedVersion: 0 })).rejects.toThrow(
      new DomainError('sealed', 'Vault is sealed'),
    );
    await store.append('r', [written('x')], { expectedVersion: 0 });
    await expect(sealed.readStream('r')).rejects.toThrow('Vault is sealed');
    expect((await sealed.verifyChain()).ok).toBe(true);
  });

  it('stores no plaintext anywhere in the database', async () => {
    const marker = `PLAINTEXT-MARKER-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const { store } = await newStore('plain');
    await store.append('secret/m/key', [written('key', marker)], { expectedVersion: 0 });
    expect((await store.readStream('secret/m/key'))[0]!.data).toMatchObject({ value: marker });

    const needles = [
      marker,
      Buffer.from(marker).toString('hex'),
      Buffer.from(marker).toString('base64').slice(0, 20),
    ];
    const findMarker = async (): Promise<string[]> => {
      const tables = await sql<{ s: string; t: string }>`
        select table_schema as s, table_name as t from information_schema.tables
         where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`.execute(
        db,
      );
      const hits: string[] = [];
      for (const { s, t } of tables.rows) {
        const rows = await sql<{
          r: string;
        }>`select x::text as r from ${sql.table(`${s}.${t}`)} as x`.execute(db);
        for (const { r } of rows.rows)
          if (needles.some((n) => r.toLowerCase().includes(n.toLowerCase()))) hits.push(`${s}.${t}`);
      }
      return hits;
    };
    expect(await findMarker()).toEqual([]);

    // what an operator's backup holds: a full pg_dump of the database. pg_dump refuses a newer
    // server, so with the throwaway embedded Postgres of a machine without one (test-infra) the
    // row scan above is the whole check.
    const canDump = async (): Promise<boolean> => {
      const serverMajor = Number(
        (
          await sql<{ v: string }>`select current_setting('server_version_num') as v`.execute(db)
        ).rows[0]?.v.slice(0, -4),
      );
      const dumpMajor = Number(/(\d+)\.\d+/.exec(execFileSync('pg_dump', ['--version']).toString())?.[1]);
      return dumpMajor >= serverMajor;
    };
    if (fx.testDb && (await canDump())) {
      const dump = execFileSync('pg_dump', ['--no-owner', fx.testDb.url], {
        maxBuffer: 64 * 1024 * 1024,
      }).toString();
      expect(dump).toContain('event_log');
      for (const n of needles) expect(dump.toLowerCase()).not.toContain(n.toLowerCase());
    }

    // the search itself works: a marker stored in clear is found
    const control = nextSchema('control');
    await migrateSchema(db, control, {
      '0001_clear': { up: async (m) => void (await sql`create table clear (v text)`.execute(m)) },
    });
    await db.withSchema(control).insertInto('clear').values({ v: marker }).execute();
    expect(await findMarker()).toEqual([`${control}.clear`]);
    await sql`drop schema ${sql.id(control)} cascade`.execute(db);
  });

  it('migrates a schema once when two replicas start together', async () => {
    const schema = nextSchema('migrate');
    const migrations = {
      '0001_boot': {
        up: async (m: AnyDb) => {
          await sql`create table boot (id serial primary key)`.execute(m);
          await sql`insert into boot default values`.execute(m);
        },
      },
    };
    const other = fx.openAnother().db;
    const [a, b] = await Promise.all([
      migrateSchema(db, schema, migrations),
      migrateSchema(other, schema, migrations),
    ]);
    expect([...a, ...b].map((r) => r.migrationName).sort()).toEqual([
      '0000_event_log',
      '0001_boot',
      '0001_event_log_actor',
    ]);
    expect(await migrateSchema(db, schema, migrations)).toEqual([]);
    const boots = await db.withSchema(schema).selectFrom('boot').select('id').execute();
    expect(boots).toHaveLength(1);
    const history = await db
      .withSchema(schema)
      .selectFrom('kysely_migration')
      .select('name')
      .orderBy('name')
      .execute();
    expect(history.map((h) => h.name)).toEqual(['0000_event_log', '0001_boot']);
    await expect(
      migrateSchema(db, nextSchema('migrate'), { '0000_a': migrations['0001_boot'] }),
    ).rejects.toThrow('must sort after');
    await expect(migrateSchema(db, 'Bad-Name', {})).rejects.toThrow('invalid schema name');
  });
});
