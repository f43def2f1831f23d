import { sql } from 'kysely';
import { withCaller } from '@coffer/transport';
import { EventLogReader } from './event-log-reader';
import { EventStore } from './event-store';
import { migrateSchema } from './migrate';
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
import type { AnyDb } from './event-store-types';

const caller = {
  requestId: 'req-1',
  namespace: 'ns1/',
  clientAddress: '127.0.0.1',
  path: 'ns1/secret/data/a',
  accessor: 'acc-1',
  entityId: 'ent-1',
  tokenRef: 'never-recorded',
  policies: ['p'],
  root: false,
  sudo: false,
};

/**
 * The actor of each event (the change feed, docs/history.md): the caller of the request being
 * served when append() is called, stored beside the event; none outside a request, and none for
 * events landed before the columns existed, which still read and verify.
 */
describe.each(DIALECTS)('event actors on %s', (dialect) => {
  let fx: DialectFixture;
  let db: AnyDb;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'event_actor');
    db = fx.handle.db;
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  it('records the current caller beside each event, and nothing outside a request', async () => {
    const schema = nextSchema('actor');
    await migrateSchema(db, schema, {});
    const store = new EventStore({ db, schema, cipher: unsealedBarrier(), registry: testRegistry() });
    await withCaller(caller, () => store.append('s/a', [written('a'), written('a')], { expectedVersion: 0 }));
    await store.append('s/b', [written('b')], { expectedVersion: 0 });

    const rows = await new EventLogReader(db).changes(schema, {
      afterWal: 0,
      toWal: 10,
      pathPrefix: '',
      limit: 10,
    });
    expect(rows.map((r) => [r.wal, r.accessor, r.entityId, r.requestId, r.path])).toEqual([
      [1, 'acc-1', 'ent-1', 'req-1', 'ns1/secret/data/a'],
      [2, 'acc-1', 'ent-1', 'req-1', 'ns1/secret/data/a'],
      [3, null, null, null, null],
    ]);
    const filtered = await new EventLogReader(db).changes(schema, {
      afterWal: 0,
      toWal: 10,
      pathPrefix: 'ns1/secret/',
      limit: 10,
    });
    expect(filtered.map((r) => r.wal)).toEqual([1, 2]);
    const dump = JSON.stringify(
      (await sql`select * from ${sql.table(`${schema}.event_log`)}`.execute(db)).rows,
    );
    expect(dump).not.toContain('never-recorded');
    expect(await store.verifyChain()).toMatchObject({ ok: true });
  });

  it('reads events landed before the actor columns with no actor, after the upgrade', async () => {
    const schema = nextSchema('actor_upgrade');
    await migrateSchema(db, schema, {});
    const store = new EventStore({ db, schema, cipher: unsealedBarrier(), registry: testRegistry() });
    await store.append('s/a', [written('a')], { expectedVersion: 0 });
    // the schema as it stood before 0001_event_log_actor: no columns, no record of the migration
    await sql`alter table ${sql.table(`${schema}.event_log`)}
                drop column actor_accessor, drop column actor_entity_id,
                drop column request_id, drop column request_path`.execute(db);
    await sql`delete from ${sql.table(`${schema}.event_log_migration`)}`.execute(db);

    const results = await migrateSchema(db, schema, {});
    expect(results.map((r) => r.migrationName)).toEqual(['0001_event_log_actor']);
    await withCaller(caller, () => store.append('s/a', [written('a')], { expectedVersion: 1 }));
    const rows = await new EventLogReader(db).changes(schema, {
      afterWal: 0,
      toWal: 10,
      pathPrefix: '',
      limit: 10,
    });
    expect(rows.map((r) => [r.wal, r.accessor])).toEqual([
      [1, null],
      [2, 'acc-1'],
    ]);
    expect((await store.readStream('s/a')).map((e) => e.wal)).toEqual([1, 2]);
    expect(await store.verifyChain()).toMatchObject({ ok: true });
  });
});
