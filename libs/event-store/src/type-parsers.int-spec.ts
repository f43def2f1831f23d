import { sql } from 'kysely';
import { migrateSchema } from './migrate';
import { DIALECTS, OPEN_TIMEOUT_MS, nextSchema, openDialect, type DialectFixture } from './int-spec.fixtures';
import type { AnyDb } from './event-store-types';

/** Values read back from Postgres and PGlite alike (type-parsers.ts), and by the test databases. */
describe.each(DIALECTS)('column values on %s', (dialect) => {
  let fx: DialectFixture;
  let db: AnyDb;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'event_store_values');
    db = fx.handle.db;
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  it('round-trips 64-bit integers, numerics, timestamps and bytes the same way', async () => {
    const schema = nextSchema('types');
    await migrateSchema(db, schema, {
      '0001_types': {
        up: async (m) => {
          await sql`create table t (id int8 primary key, n numeric, f numeric, arr int8[], at timestamptz, b bytea)`.execute(
            m,
          );
        },
      },
    });
    const at = new Date('2024-02-29T23:59:59.123Z');
    const max = Number.MAX_SAFE_INTEGER;
    await db
      .withSchema(schema)
      .insertInto('t')
      .values([
        {
          id: max,
          n: max,
          f: 1.5,
          arr: sql`array[${max}, ${-max}]::int8[]`,
          at,
          b: Buffer.from([0, 1, 255]),
        },
        { id: -max, n: 0, f: 0, arr: sql`array[]::int8[]`, at, b: Buffer.alloc(0) },
      ])
      .execute();
    const rows = await db.withSchema(schema).selectFrom('t').selectAll().orderBy('id', 'desc').execute();
    expect(rows[0]).toEqual({ id: max, n: max, f: 1.5, arr: [max, -max], at, b: Buffer.from([0, 1, 255]) });
    expect(rows[1]).toMatchObject({ id: -max, n: 0, arr: [] });
    expect(Buffer.isBuffer(rows[0]!.b)).toBe(true);

    const agg = await db
      .withSchema(schema)
      .selectFrom('t')
      .select((eb) => [eb.fn.countAll().as('count'), eb.fn.sum('n').as('sum')])
      .executeTakeFirstOrThrow();
    expect(agg).toEqual({ count: 2, sum: max });

    await expect(sql`select ${String(max)}::int8 + 2 as v`.execute(db)).rejects.toThrow(RangeError);
    await expect(sql`select ${String(max)}::numeric + 2 as v`.execute(db)).rejects.toThrow(RangeError);
    // the connection is still usable after a parse failure
    expect((await sql<{ v: number }>`select 1::int8 as v`.execute(db)).rows).toEqual([{ v: 1 }]);
  });

  it('keeps json keys named like Object.prototype members', async () => {
    const { rows } = await sql<{
      j: Record<string, unknown>;
    }>`select '{"__proto__":"p","constructor":{"toString":"t"}}'::jsonb as j`.execute(db);
    const j = rows[0]!.j;
    expect(Object.keys(j).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(j)).toBe(Object.prototype);
    expect(Object.keys(j['constructor'] as object)).toEqual(['toString']);
  });
});

describe('test databases', () => {
  it('read values like createPgDb does', async () => {
    const fx = await openDialect('pg', 'event_store_parity');
    try {
      const q = sql<{
        a: number;
        c: number;
        t: Date;
      }>`select 9007199254740991::int8 as a, count(*) as c, now() as t`;
      const viaTesting = (await q.execute(fx.testDb!.db)).rows[0];
      const viaStore = (await q.execute(fx.handle.db)).rows[0];
      expect(viaTesting).toMatchObject({ a: Number.MAX_SAFE_INTEGER, c: 1 });
      expect(viaStore).toMatchObject({ a: Number.MAX_SAFE_INTEGER, c: 1 });
      expect(viaTesting!.t).toBeInstanceOf(Date);
      await expect(sql`select 9007199254740993::int8 as a`.execute(fx.testDb!.db)).rejects.toThrow(
        RangeError,
      );
    } finally {
      await fx.close();
    }
  });
});
