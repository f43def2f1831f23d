import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely, type Migration } from 'kysely';
import { migrateFromSnapshot, startPgliteFromSnapshot, type SchemaMigrations } from './pglite-snapshot';
import type { PgliteDbHandle } from './pglite-db';

// Several PGlite boots per test (WASM): generous time.
jest.setTimeout(120_000);

const createNote: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('note')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute();
  },
};
const addBody: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('note').addColumn('body', 'text').execute();
  },
};
const V1: SchemaMigrations[] = [{ schema: 'snap', migrations: { '0001_note': createNote } }];
const V2: SchemaMigrations[] = [
  { schema: 'snap', migrations: { '0001_note': createNote, '0002_body': addBody } },
];

const columnsOf = async (handle: PgliteDbHandle): Promise<string[]> => {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = 'snap' and table_name = 'note' order by column_name`.execute(handle.db);
  return rows.map((r) => r.column_name);
};
const noteCount = async (handle: PgliteDbHandle): Promise<number> =>
  (await sql<{ n: number }>`select count(*)::int as n from snap.note`.execute(handle.db)).rows[0]?.n ?? -1;

describe('PGlite snapshot of the migrated schemas (dev mode start)', () => {
  let dir: string;
  let file: string;
  const open: PgliteDbHandle[] = [];
  const start = async (services: readonly SchemaMigrations[]) => {
    const started = startPgliteFromSnapshot(file);
    open.push(started);
    const result = await migrateFromSnapshot(started, file, services);
    open.push(result.handle);
    return result;
  };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-snapshot-'));
    file = path.join(dir, 'cache', 'pglite.snapshot');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('migrates and saves on the first start, then starts from the snapshot without what was written after', async () => {
    const first = await start(V1);
    expect(first.restored).toBe(false);
    expect(first.saveError).toBeUndefined();
    await sql`insert into snap.note (id) values (1)`.execute(first.handle.db);
    await first.handle.close();

    const second = await start(V1);
    expect(second.restored).toBe(true);
    expect(await columnsOf(second.handle)).toEqual(['id']);
    // only the empty migrated schemas are ever in the snapshot
    expect(await noteCount(second.handle)).toBe(0);
  });

  it('starts over and rewrites the snapshot when the migrations differ from it', async () => {
    await (await start(V1)).handle.close();
    const before = await readFile(file);

    const changed = await start(V2);
    expect(changed.restored).toBe(false);
    expect(await columnsOf(changed.handle)).toEqual(['body', 'id']);
    expect((await readFile(file)).equals(before)).toBe(false);
    await changed.handle.close();

    const again = await start(V2);
    expect(again.restored).toBe(true);
    expect(await columnsOf(again.handle)).toEqual(['body', 'id']);
  });

  it('starts empty and migrates when the snapshot file is damaged', async () => {
    await (await start(V1)).handle.close();
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));

    const damaged = await start(V1);
    expect(damaged.restored).toBe(false);
    expect(await columnsOf(damaged.handle)).toEqual(['id']);
    await damaged.handle.close();
    expect((await start(V1)).restored).toBe(true);
  });
});
