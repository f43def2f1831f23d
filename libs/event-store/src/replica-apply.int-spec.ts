import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { createServiceEventStore, defineAggregateLog, type AppendedOf } from './aggregate-log';
import { defineEvent } from './event-registry';
import { migrateSchema } from './migrate';
import type { Cipher } from '@coffer/barrier';
import { applyReplicaRows, openReplicaPayload, ReplicaApplyError, type ReplicaRow } from './replica-apply';
import { replayable, ReplayRegistry } from './replay';
import { ServiceDb } from './service-db';
import { OPEN_TIMEOUT_MS, openDialect, unsealedBarrier, type DialectFixture } from './int-spec.fixtures';
import type { AnyDb, AnyTrx } from './event-store-types';
import type { EventStore } from './event-store';

interface LampDatabase {
  lamps: { id: string; on: boolean; switches: number };
}

const LAMP_EVENTS = {
  switchedOn: defineEvent('LampSwitchedOn', 1, z.object({ by: z.string() })),
  switchedOff: defineEvent('LampSwitchedOff', 1, z.object({})),
} as const;
const LAMP_LOG = defineAggregateLog({
  description: 'a lamp event',
  events: LAMP_EVENTS,
  stream: (id: string) => `lamp/${id}`,
});
const SCHEMA = 'lamps';

/** The one projection both clusters run: the primary on append, the secondary on replay. */
function lampProjection(db: ServiceDb<LampDatabase>) {
  return {
    async apply(trx: AnyTrx, events: AppendedOf<typeof LAMP_EVENTS>[], id: string): Promise<void> {
      for (const e of events) {
        await db
          .of(trx)
          .insertInto('lamps')
          .values({ id, on: e.type === 'LampSwitchedOn', switches: 1 })
          .onConflict((oc) =>
            oc.column('id').doUpdateSet((eb) => ({
              on: e.type === 'LampSwitchedOn',
              switches: eb('lamps.switches', '+', 1),
            })),
          )
          .execute();
      }
    },
  };
}

async function openCluster(fx: DialectFixture, barrier = unsealedBarrier()) {
  const db: AnyDb = fx.handle.db;
  await migrateSchema(db, SCHEMA, {
    '0001_lamps': {
      up: async (m: Kysely<unknown>) => {
        await sql`create table lamps (id text primary key, "on" boolean not null, switches int not null)`.execute(
          m,
        );
      },
    },
  });
  const runtime = { db, schema: SCHEMA, cipher: barrier, clock: () => new Date() };
  const lamps = new ServiceDb<LampDatabase>(runtime);
  const projection = lampProjection(lamps);
  const store = createServiceEventStore(runtime, [LAMP_LOG]);
  const writer = LAMP_LOG.writer(store, projection);
  const replay = new ReplayRegistry([replayable(LAMP_LOG, projection, (_trx, stream) => stream.slice(5))]);
  const readLamps = () => lamps.of().selectFrom('lamps').selectAll().orderBy('id').execute();
  return { db, store, writer, replay, readLamps, barrier };
}

/** What the replication service ships: the raw rows, their payloads opened with the writer's keyring. */
async function shipped(from: { store: EventStore; barrier: Cipher }, afterWal = 0): Promise<ReplicaRow[]> {
  const raw = await from.store.readRawFrom(afterWal, 1000);
  return raw.map((r) => ({ ...r, data: openReplicaPayload(from.barrier, SCHEMA, r) }));
}

describe('applying a primary log on a secondary (pg)', () => {
  let primaryFx: DialectFixture;
  let secondaryFx: DialectFixture;
  let primary: Awaited<ReturnType<typeof openCluster>>;
  let secondary: Awaited<ReturnType<typeof openCluster>>;

  beforeAll(async () => {
    primaryFx = await openDialect('pg', 'replica_primary');
    secondaryFx = await openDialect('pg', 'replica_secondary');
    primary = await openCluster(primaryFx);
    secondary = await openCluster(secondaryFx);
  }, OPEN_TIMEOUT_MS);
  afterAll(async () => {
    await primaryFx.close();
    await secondaryFx.close();
  });

  const applyOn = (rows: readonly ReplicaRow[]) =>
    applyReplicaRows(secondary.db, SCHEMA, rows, (trx, events) => secondary.replay.project(trx, events));

  it('rebuilds the same log (WAL, hash chain) and the same read model, through the same projection', async () => {
    await primary.writer.append('hall', 0, [{ type: 'LampSwitchedOn', data: { by: 'ann' } }]);
    await primary.writer.append('desk', 0, [
      { type: 'LampSwitchedOn', data: { by: 'bob' } },
      { type: 'LampSwitchedOff', data: {} },
    ]);
    await primary.writer.append('hall', 1, [{ type: 'LampSwitchedOff', data: {} }]);
    const rows = await shipped(primary);

    const head = await applyOn(rows);

    expect(head).toEqual(await primary.store.head());
    expect(await secondary.readLamps()).toEqual(await primary.readLamps());
    expect(await secondary.readLamps()).toEqual([
      { id: 'desk', on: false, switches: 2 },
      { id: 'hall', on: false, switches: 2 },
    ]);
    // the chain verifies on the secondary's own copy (it hashes the ciphertexts)
    expect(await secondary.store.verifyChain()).toMatchObject({ ok: true, checked: 4 });
  });

  it('applies redelivered and overlapping batches once', async () => {
    const before = await secondary.readLamps();
    await primary.writer.append('porch', 0, [{ type: 'LampSwitchedOn', data: { by: 'cy' } }]);
    await primary.writer.append('porch', 1, [{ type: 'LampSwitchedOff', data: {} }]);
    const all = await shipped(primary);
    await applyOn(all.slice(0, 5)); // the old rows again plus one new
    await applyOn(all); // everything again: only the last row is new
    await applyOn(all);
    expect(await secondary.store.head()).toEqual(await primary.store.head());
    expect(await secondary.readLamps()).toEqual(
      [...before, { id: 'porch', on: false, switches: 2 }].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('refuses a gap, a broken chain and a diverged log, leaving nothing behind', async () => {
    await primary.writer.append('attic', 0, [{ type: 'LampSwitchedOn', data: { by: 'di' } }]);
    await primary.writer.append('attic', 1, [{ type: 'LampSwitchedOff', data: {} }]);
    const head = await secondary.store.head();
    const next = await shipped(primary, head.lastWal);
    const [a, b] = next as [ReplicaRow, ReplicaRow];

    await expect(applyOn([b])).rejects.toMatchObject({ reason: 'gap', wal: b.wal });
    const tampered = { ...a, payload: Buffer.concat([a.payload, Buffer.from([0])]) };
    await expect(applyOn([tampered])).rejects.toBeInstanceOf(ReplicaApplyError);
    await expect(applyOn([{ ...a, hash: 'f'.repeat(64) }, b])).rejects.toMatchObject({
      reason: 'hash_mismatch',
    });
    expect(await secondary.store.head()).toEqual(head);
    expect((await secondary.readLamps()).some((l) => l.id === 'attic')).toBe(false);

    // a row the secondary holds with another hash: the logs diverged (a re-sync is needed)
    const [last] = await shipped(primary, head.lastWal - 1);
    await expect(applyOn([{ ...(last as ReplicaRow), hash: '0'.repeat(64) }])).rejects.toMatchObject({
      reason: 'diverged',
    });

    await applyOn(next);
    expect(await secondary.store.head()).toEqual(await primary.store.head());
  });

  it('keeps a filtered row as a placeholder (position and hash) without projecting it', async () => {
    await primary.writer.append('cellar', 0, [{ type: 'LampSwitchedOn', data: { by: 'ed' } }]);
    await primary.writer.append('garage', 0, [{ type: 'LampSwitchedOn', data: { by: 'fi' } }]);
    const head = await secondary.store.head();
    const [cellar, garage] = (await shipped(primary, head.lastWal)) as [ReplicaRow, ReplicaRow];
    await applyOn([{ ...cellar, payload: Buffer.alloc(0), data: undefined, filtered: true }, garage]);
    expect(await secondary.store.head()).toEqual(await primary.store.head());
    const ids = (await secondary.readLamps()).map((l) => l.id);
    expect(ids).toContain('garage');
    expect(ids).not.toContain('cellar');
  });
});
