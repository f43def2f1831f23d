import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { createServiceEventStore, defineAggregateLog, versionAfter, type AppendedOf } from './aggregate-log';
import { ConcurrencyError } from './concurrency';
import { migrateSchema } from './migrate';
import { defineEvent, priorVersion } from './event-registry';
import { ServiceDb } from './service-db';
import {
  DIALECTS,
  OPEN_TIMEOUT_MS,
  nextSchema,
  openDialect,
  unsealedBarrier,
  type DialectFixture,
} from './int-spec.fixtures';
import type { AnyTrx } from './event-store-types';

interface DoorDatabase {
  doors: { id: string; opened_by: string; version: number };
}

const DOOR_EVENTS = {
  opened: defineEvent('DoorOpened', 2, z.object({ by: z.string() }), [
    priorVersion(1, z.object({ who: z.string() }), (d) => ({ by: d.who })),
  ]),
  closed: defineEvent('DoorClosed', 1, z.object({})),
} as const;
const DOOR_LOG = defineAggregateLog({
  description: 'a door event',
  events: DOOR_EVENTS,
  stream: (id: string) => `door/${id}`,
});

describe.each(DIALECTS)('aggregate logs on %s', (dialect) => {
  let fx: DialectFixture;
  beforeAll(async () => {
    fx = await openDialect(dialect, 'aggregate_log');
  }, OPEN_TIMEOUT_MS);
  afterAll(() => fx.close());

  async function setUp(failOn?: string) {
    const schema = nextSchema('doors');
    const db = fx.handle.db;
    await migrateSchema(db, schema, {
      '0001_doors': {
        up: async (m: Kysely<unknown>) => {
          await sql`create table doors (id text primary key, opened_by text not null, version int not null)`.execute(
            m,
          );
        },
      },
    });
    const runtime = { db, schema, cipher: unsealedBarrier(), clock: () => new Date('2030-01-01T00:00:00Z') };
    const doors = new ServiceDb<DoorDatabase>(runtime);
    const projection = {
      async apply(trx: AnyTrx, events: AppendedOf<typeof DOOR_EVENTS>[], id: string): Promise<number> {
        for (const e of events) {
          if (e.type === 'DoorOpened' && e.data.by === failOn) throw new Error('projection failed');
          const opened_by = e.type === 'DoorOpened' ? e.data.by : '';
          await doors
            .of(trx)
            .insertInto('doors')
            .values({ id, opened_by, version: e.streamVersion })
            .onConflict((oc) => oc.column('id').doUpdateSet({ opened_by, version: e.streamVersion }))
            .execute();
        }
        return versionAfter(events);
      },
    };
    const store = createServiceEventStore(runtime, [DOOR_LOG]);
    return { store, doors, writer: DOOR_LOG.writer(store, projection) };
  }

  it('appends typed events with the projection in the same transaction, on the runtime clock', async () => {
    const { writer, doors } = await setUp();
    expect(await writer.append('d1', 0, [{ type: 'DoorOpened', data: { by: 'ann' } }])).toBe(1);
    expect(await writer.append('d1', 1, [{ type: 'DoorClosed', data: {} }])).toBe(2);
    expect(await doors.of().selectFrom('doors').selectAll().execute()).toEqual([
      { id: 'd1', opened_by: '', version: 2 },
    ]);
    const events = await writer.read('d1');
    expect(events.map((e) => [e.type, e.data, e.streamVersion])).toEqual([
      ['DoorOpened', { by: 'ann' }, 1],
      ['DoorClosed', {}, 2],
    ]);
    expect(events[0]!.recordedAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    await expect(writer.append('d1', 1, [{ type: 'DoorClosed', data: {} }])).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
  });

  it('leaves nothing behind when the projection fails', async () => {
    const { writer, store, doors } = await setUp('mallory');
    await expect(writer.append('d2', 0, [{ type: 'DoorOpened', data: { by: 'mallory' } }])).rejects.toThrow(
      'projection failed',
    );
    expect(await store.streamVersion('door/d2')).toBe(0);
    expect(await doors.of().selectFrom('doors').selectAll().execute()).toEqual([]);
  });

  it('reads events stored at an older version through their upcaster', async () => {
    const { writer, store } = await setUp();
    await store.append('door/d3', [{ type: 'DoorOpened', version: 1, data: { who: 'bob' } }], {
      expectedVersion: 0,
    });
    expect((await writer.read('d3')).map((e) => e.data)).toEqual([{ by: 'bob' }]);
  });
});
