import { Barrier, createKeyring } from '@coffer/barrier';
import { migrateSchema, type EventStore, type NewEvent } from '@coffer/event-store';
import { createTestDatabase, type TestDatabase } from '@coffer/testing';
import { CORE_SYS_SCHEMA, coreSysMigrations } from '../migrations';
import { createCoreSysEventStore, createHistoryQueries } from './index';
import { HistoryPolicyCache } from './history-policy-cache';

const POLICIES = 12;
const TOKENS = 10;

function tokenCreated(i: number, policies: string[]): NewEvent {
  return {
    type: 'TokenCreated',
    version: 1,
    data: {
      accessor: `acc-${i}`,
      tokenHash: `hash-${i}`,
      tokenRef: `ref-${i}`,
      parentAccessor: null,
      policies,
      meta: {},
      displayName: 'token',
      numUses: 0,
      renewable: false,
      creationTtl: 0,
      renewTtl: 0,
      backendMaxTtl: 0,
      explicitMaxTtl: 0,
      period: 0,
      createdAt: Date.now(),
      expiresAt: 0,
      path: 'auth/token/create',
      entityId: '',
      mountAccessor: '',
    },
  };
}

const writePolicy = (store: EventStore, i: number, edit: number) =>
  store.append(
    `policy/acl/p-${i}`,
    [
      {
        type: 'PolicyWritten',
        version: 1,
        data: { name: `p-${i}`, policy: `path "secret/${i % 3}/*" { capabilities = ["read"] }\n# ${edit}` },
      },
    ],
    { expectedVersion: 'any' },
  );

/**
 * The history indexer's policy warm-up against real Postgres: after an index pass and a warm-up,
 * the policy cache holds every written policy version the index holds, so who-could questions at
 * any instant parse nothing (and answer as a process that parsed on the request path does); a
 * later pass warms only the versions written since.
 */
describe('history policy warm-up (Postgres)', () => {
  let database: TestDatabase;
  let store: EventStore;
  let runtime: Parameters<typeof createHistoryQueries>[0];
  const written: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('history-policy-warmer');
    await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
    const cipher = new Barrier();
    cipher.load(createKeyring());
    runtime = { db: database.db, schema: CORE_SYS_SCHEMA, clock: () => new Date() };
    store = createCoreSysEventStore({ ...runtime, cipher });
    for (let edit = 0; edit < 3; edit++) {
      for (let i = 0; i < POLICIES; i++) {
        if ((i + edit) % 4 !== 0) written.push((await writePolicy(store, i, edit)).lastWal);
      }
      for (let t = edit * 4; t < Math.min(TOKENS, edit * 4 + 4); t++) {
        await store.append(`token/acc-${t}`, [tokenCreated(t, [`p-${t}`, `p-${(t + 5) % POLICIES}`])], {
          expectedVersion: 0,
        });
      }
    }
    const deleted = await store.append(
      'policy/acl/p-1',
      [{ type: 'PolicyDeleted', version: 1, data: { name: 'p-1' } }],
      { expectedVersion: 'any' },
    );
    expect(deleted.lastWal).toBeGreaterThan(0);
  });

  afterEach(() => jest.restoreAllMocks());
  afterAll(() => database.drop());

  it('holds every indexed policy version after a pass: a question parses nothing', async () => {
    const { lastWal } = await store.head();
    const warm = createHistoryQueries(runtime, store);
    await warm.index.catchUp(lastWal);
    expect(await warm.warmer.warm(lastWal)).toBe(written.length);
    expect(await warm.warmer.warm(lastWal)).toBe(0);

    const cold = createHistoryQueries(runtime, store);
    const parse = jest.spyOn(HistoryPolicyCache.prototype, 'parse');
    for (let wal = 1; wal <= lastWal; wal += 3) {
      for (const path of ['secret/0/x', 'secret/1/x', 'secret/2/x']) {
        const question = { path, operation: 'read', at: String(wal) };
        parse.mockClear();
        const answer = await warm.access.accessAt(question, '');
        expect(parse).not.toHaveBeenCalled();
        // the same answer as a process that parses on the request path
        expect(answer).toEqual(await cold.access.accessAt(question, ''));
      }
    }
    const asked = await warm.access.accessAt({ path: 'secret/2/x', operation: 'read', at: undefined }, '');
    expect(asked.data?.accessors.length).toBeGreaterThan(0);
  });

  it('warms only the versions written since on a later pass', async () => {
    const { lastWal } = await store.head();
    const { index, warmer, access } = createHistoryQueries(runtime, store);
    await index.catchUp(lastWal);
    await warmer.warm(lastWal);
    const edited = (await writePolicy(store, 5, 99)).lastWal;
    await index.catchUp(edited);
    expect(await warmer.warm(edited)).toBe(1);
    const parse = jest.spyOn(HistoryPolicyCache.prototype, 'parse');
    await access.accessAt({ path: 'secret/2/x', operation: 'read', at: undefined }, '');
    expect(parse).not.toHaveBeenCalled();
  });
});
