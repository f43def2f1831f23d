import { Barrier, createKeyring } from '@coffer/barrier';
import { migrateSchema, type EventStore } from '@coffer/event-store';
import { createTestDatabase, type TestDatabase } from '@coffer/testing';
import { CoreSysDb } from '../core-sys.table';
import { CORE_SYS_SCHEMA, coreSysMigrations } from '../migrations';
import { createCoreSysEventStore } from './index';
import { HistoryAccessIndexRepository } from './history-access-index.repository';

// migrating core-sys's schema alone can take seconds on a busy machine
jest.setTimeout(60_000);

const POLICIES = 40;
const EVENTS = 400;

/** A deterministic pseudo-random sequence (the script is the same on every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/**
 * The policy spans of the access index against real Postgres: a log of policies written and
 * deleted at random, indexed in uneven, overlapping passes (as racing replicas and catch-ups
 * do); at every WAL, "each policy's version then" must be the same whether it comes from the
 * stabbing query over the spans (many policies) or one lookup per policy (few), and equal to
 * the log read by hand.
 */
describe('history access index: policy versions at an instant (Postgres)', () => {
  let database: TestDatabase;
  let store: EventStore;
  let repo: HistoryAccessIndexRepository;
  /** per WAL, the stream it touched and whether it wrote the policy */
  const script: { stream: string; written: boolean }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('history-access-index');
    await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
    const cipher = new Barrier();
    cipher.load(createKeyring());
    const runtime = { db: database.db, schema: CORE_SYS_SCHEMA, cipher, clock: () => new Date() };
    store = createCoreSysEventStore(runtime);
    repo = new HistoryAccessIndexRepository(new CoreSysDb(runtime));
    const random = lcg(7);
    for (let i = 0; i < EVENTS; i++) {
      const name = `p-${Math.floor(random() * POLICIES)}`;
      const written = random() < 0.8;
      await store.append(
        `policy/acl/${name}`,
        [
          written
            ? {
                type: 'PolicyWritten',
                version: 1,
                data: { name, policy: `path "x/${i}" { capabilities = ["read"] }` },
              }
            : { type: 'PolicyDeleted', version: 1, data: { name } },
        ],
        { expectedVersion: 'any' },
      );
      script.push({ stream: `policy/acl/${name}`, written });
    }
  });

  afterAll(() => database.drop());

  /** Each stream's last event at or before `wal`, read off the script. */
  const expected = (wal: number) => {
    const out = new Map<string, { wal: number; written: boolean }>();
    script.slice(0, wal).forEach((e, i) => out.set(e.stream, { wal: i + 1, written: e.written }));
    return out;
  };

  it('answers every instant the same by spans and by lookups, after overlapping passes', async () => {
    // uneven passes, a later one first, and ranges indexed twice
    for (const [from, to] of [
      [1, 57],
      [120, 250],
      [40, 130],
      [58, 119],
      [200, 333],
      [334, EVENTS],
      [1, EVENTS],
    ] as const) {
      await repo.indexPolicies(from, to);
    }
    const all = Array.from({ length: POLICIES + 2 }, (_, i) => `policy/acl/p-${i}`);
    for (let wal = 1; wal <= EVENTS; wal++) {
      const want = expected(wal);
      const bySpans = await repo.policyVersionsAt(all, wal);
      const byLookups = (
        await Promise.all(
          [0, 10, 20, 30, 40].map((from) => repo.policyVersionsAt(all.slice(from, from + 10), wal)),
        )
      ).flat();
      const asMap = (rows: { stream: string; wal: number; written: boolean }[]) =>
        new Map(rows.map((r) => [r.stream, { wal: r.wal, written: r.written }]));
      expect(bySpans).toHaveLength(want.size);
      expect(byLookups).toHaveLength(want.size);
      expect(asMap(bySpans)).toEqual(want);
      expect(asMap(byLookups)).toEqual(want);
      const listed = (await repo.writtenStreamsAt('policy/acl/', wal)).sort();
      expect(listed).toEqual(
        [...want]
          .filter(([, v]) => v.written)
          .map(([s]) => s)
          .sort(),
      );
    }
  });
});
