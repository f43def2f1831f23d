import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Cipher } from '@coffer/barrier';
import { replicaApplyContract, type ReplicationMode } from '@coffer/contracts/replication';
import { natsUrl, uniqueSubjectPrefix } from '@coffer/testing';
import { connectNatsTransport, type Transport } from '@coffer/transport';
import { createServiceEventStore, defineAggregateLog, type AppendedOf } from './aggregate-log';
import { mountOfStream, replicaLogMigration, serveEngineReplica } from './engine-replica';
import { defineEvent } from './event-registry';
import type { EventStore } from './event-store';
import type { AnyTrx } from './event-store-types';
import { migrateSchema } from './migrate';
import { openedReplicaEvent } from './replica-apply';
import { replayable } from './replay';
import { ServiceDb } from './service-db';
import { OPEN_TIMEOUT_MS, openDialect, unsealedBarrier, type DialectFixture } from './int-spec.fixtures';

jest.setTimeout(60_000);

/** A mount-keyed engine: bulbs installed (a plain insert: projected twice, a duplicate key) and switched. */
interface BulbDatabase {
  bulbs: { mount_uuid: string; name: string; switches: number; stream_version: number };
}
const BULB_EVENTS = {
  installed: defineEvent('BulbInstalled', 1, z.object({})),
  switched: defineEvent('BulbSwitched', 1, z.object({})),
} as const;
interface BulbKey {
  mount: string;
  name: string;
}
const BULB_LOG = defineAggregateLog({
  description: 'a bulb event',
  events: BULB_EVENTS,
  stream: (k: BulbKey) => `bulb/${k.mount}/${k.name}`,
});
const SCHEMA = 'bulbs';

function bulbProjection(db: ServiceDb<BulbDatabase>) {
  return {
    async apply(trx: AnyTrx, events: AppendedOf<typeof BULB_EVENTS>[], key: BulbKey): Promise<void> {
      for (const e of events) {
        if (e.type === 'BulbInstalled')
          await db
            .of(trx)
            .insertInto('bulbs')
            .values({ mount_uuid: key.mount, name: key.name, switches: 0, stream_version: e.streamVersion })
            .execute();
        else
          await db
            .of(trx)
            .updateTable('bulbs')
            .set((eb) => ({ switches: eb('switches', '+', 1), stream_version: e.streamVersion }))
            .where('mount_uuid', '=', key.mount)
            .where('name', '=', key.name)
            .execute();
      }
    },
  };
}

async function openCluster(fx: DialectFixture, name: string) {
  const barrier = unsealedBarrier();
  const db = fx.handle.db;
  await migrateSchema(db, SCHEMA, {
    '0001_bulbs': {
      up: async (m: Kysely<unknown>) => {
        await sql`create table bulbs (mount_uuid text, name text, switches int not null,
                    stream_version int not null, primary key (mount_uuid, name))`.execute(m);
      },
    },
    '0002_bulbs_replica_log': replicaLogMigration(SCHEMA),
  });
  const runtime = { db, schema: SCHEMA, cipher: barrier, clock: () => new Date() };
  const bulbs = new ServiceDb<BulbDatabase>(runtime);
  const projection = bulbProjection(bulbs);
  const store = createServiceEventStore(runtime, [BULB_LOG]);
  const writer = BULB_LOG.writer(store, projection);
  const prefix = uniqueSubjectPrefix(name);
  const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name });
  const client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: `${name}-c` });
  const served = serveEngineReplica({ db, schema: SCHEMA, transport }, store, {
    replayables: [
      replayable(BULB_LOG, projection, (_trx, stream) => {
        const [, mount = '', bulb = ''] = stream.split('/');
        return { mount, name: bulb };
      }),
    ],
    mountOf: mountOfStream,
  });
  const readBulbs = () =>
    bulbs
      .of()
      .selectFrom('bulbs')
      .select(['mount_uuid', 'name', 'switches', 'stream_version'])
      .orderBy('mount_uuid')
      .orderBy('name')
      .execute();
  const count = async (table: string) =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]?.n ?? -1,
    );
  return {
    db,
    store,
    writer,
    barrier,
    bulbs,
    readBulbs,
    count,
    apply: (req: Parameters<Transport['request']>[1]) =>
      client.request(replicaApplyContract(SCHEMA), req as never, { write: true }),
    async close() {
      served.onModuleDestroy();
      await client.close();
      await transport.close();
    },
  };
}

/** One round of the replication service: the primary's rows after the secondary's head, opened. */
async function ship(
  from: { store: EventStore; barrier: Cipher },
  to: Awaited<ReturnType<typeof openCluster>>,
  mode: ReplicationMode,
) {
  const head = await to.apply({ op: 'head' });
  const rows = await from.store.readRawFrom(head.lastWal, 10_000);
  return to.apply({
    op: 'apply',
    mode,
    events: rows.map((r) => openedReplicaEvent(from.barrier, SCHEMA, r)),
    attachments: {},
  });
}

describe("a re-sync ('replicated' wipe) keeps a secondary's own data; secondary/enable ('all') does not", () => {
  let primaryFx: DialectFixture;
  let secondaryFx: DialectFixture;
  let primary: Awaited<ReturnType<typeof openCluster>>;
  let secondary: Awaited<ReturnType<typeof openCluster>>;
  const shared = randomUUID();
  const local = randomUUID();
  const purged = randomUUID();

  beforeAll(async () => {
    primaryFx = await openDialect('pg', 'rebuild_primary');
    secondaryFx = await openDialect('pg', 'rebuild_secondary');
    primary = await openCluster(primaryFx, 'rebuild_primary');
    secondary = await openCluster(secondaryFx, 'rebuild_secondary');
  }, OPEN_TIMEOUT_MS);
  afterAll(async () => {
    await primary?.close();
    await secondary?.close();
    await primaryFx?.close();
    await secondaryFx?.close();
  });

  it('rebuilds the read model from the own log, drops the replica rows, and takes the primary rows again', async () => {
    await primary.writer.append({ mount: shared, name: 'hall' }, 0, [
      { type: 'BulbInstalled', data: {} },
      { type: 'BulbSwitched', data: {} },
    ]);
    await primary.writer.append({ mount: shared, name: 'porch' }, 0, [{ type: 'BulbInstalled', data: {} }]);
    await ship(primary, secondary, 'performance');
    // the secondary's own writes: under the primary's mount, a mount of its own (more events than
    // a rebuild reads at once, in one stream across the batch boundary), and a mount purged since
    // (its rows deleted outside the log, as on a mountDisabled broadcast)
    await secondary.writer.append({ mount: shared, name: 'desk' }, 0, [
      { type: 'BulbInstalled', data: {} },
      { type: 'BulbSwitched', data: {} },
    ]);
    await secondary.writer.append({ mount: local, name: 'lamp' }, 0, [
      { type: 'BulbInstalled', data: {} },
      ...Array.from({ length: 1_200 }, () => ({ type: 'BulbSwitched' as const, data: {} })),
    ]);
    await secondary.writer.append({ mount: purged, name: 'old' }, 0, [{ type: 'BulbInstalled', data: {} }]);
    await secondary.bulbs.of().deleteFrom('bulbs').where('mount_uuid', '=', purged).execute();
    // a promotion fold's progress (cleared with the replica log it describes)
    await sql`insert into bulbs_replica.replica_fold_position (id, through_wal) values (1, 3)`.execute(
      secondary.db,
    );
    const ownHead = await secondary.store.head();
    const before = await secondary.readBulbs();
    expect(before).toHaveLength(4);

    expect(await secondary.apply({ op: 'wipe', mode: 'performance', scope: 'replicated' })).toMatchObject({
      lastWal: 0,
    });

    // the own log is untouched, its rows served as before; the primary's are gone
    expect(await secondary.store.head()).toEqual(ownHead);
    expect(await secondary.count('bulbs_replica.event_log')).toBe(0);
    expect(await secondary.count('bulbs_replica.replica_fold_position')).toBe(0);
    expect(await secondary.readBulbs()).toEqual(before.filter((b) => !['hall', 'porch'].includes(b.name)));
    expect(await secondary.readBulbs()).toEqual(
      expect.arrayContaining([
        { mount_uuid: local, name: 'lamp', switches: 1_200, stream_version: 1_201 },
        { mount_uuid: shared, name: 'desk', switches: 1, stream_version: 2 },
      ]),
    );

    // the primary's rows arrive again on the next connection (no duplicate key), and own writes go on
    await primary.writer.append({ mount: shared, name: 'porch' }, 1, [{ type: 'BulbSwitched', data: {} }]);
    expect(await ship(primary, secondary, 'performance')).toEqual(await primary.store.head());
    await secondary.writer.append({ mount: shared, name: 'desk' }, 2, [{ type: 'BulbSwitched', data: {} }]);
    expect(await secondary.readBulbs()).toEqual(
      [
        ...before.filter((b) => b.name !== 'porch'),
        { mount_uuid: shared, name: 'porch', switches: 1, stream_version: 2 },
      ]
        .map((b) => (b.name === 'desk' ? { ...b, switches: 2, stream_version: 3 } : b))
        .sort((a, b) => a.mount_uuid.localeCompare(b.mount_uuid) || a.name.localeCompare(b.name)),
    );
    // once more: a re-sync is repeatable
    await secondary.apply({ op: 'wipe', mode: 'performance', scope: 'replicated' });
    await ship(primary, secondary, 'performance');
    expect(await secondary.count('bulbs.bulbs')).toBe(4);
  });

  it("clears everything on secondary/enable ('all'), and on a DR secondary's re-sync", async () => {
    for (const wipe of [
      { op: 'wipe', mode: 'performance', scope: 'all' },
      { op: 'wipe', mode: 'dr', scope: 'replicated' },
      // a request without a scope is an enable's
      { op: 'wipe', mode: 'performance' },
    ] as const) {
      await ship(primary, secondary, wipe.mode);
      await secondary.writer.append({ mount: local, name: randomUUID() }, 0, [
        { type: 'BulbInstalled', data: {} },
      ]);
      expect((await secondary.apply(wipe)).lastWal).toBe(0);
      expect((await secondary.store.head()).lastWal).toBe(0);
      expect(await secondary.count('bulbs_replica.event_log')).toBe(0);
      expect(await secondary.readBulbs()).toEqual([]);
    }
    // and the primary's rows apply again from 0
    await ship(primary, secondary, 'dr');
    expect(await secondary.count('bulbs.bulbs')).toBe(2);
  });
});
