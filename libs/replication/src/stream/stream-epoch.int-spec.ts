import { z } from 'zod';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  createPgDb,
  defineEvent,
  EventRegistry,
  EventStore,
  migrateSchema,
  type DbHandle,
  type ServiceRuntime,
} from '@coffer/event-store';
import {
  createTestDatabase,
  freePort,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  type TestDatabase,
} from '@coffer/testing';
import { connectNatsTransport, type Transport } from '@coffer/transport';
import { REPLICATION_SCHEMA } from '../replication.di';
import { ReplicationDb } from '../replication.table';
import { replicationMigrations } from '../migrations';
import { initialModeState, type ModeState, type PrimaryLink } from '../state/replication-state.decider';
import { WalSource } from '../wal/wal-source';
import { ClusterListener } from './cluster-listener';
import { ReplicaKeyringsRepository } from './replica-keyrings.repository';
import { ReplicaLogRepository } from './replica-log.repository';
import { ReplicaSink } from './replica-sink';
import { StreamClient } from './stream-client';
import { StreamStatus } from './stream-status';

const SOURCE = 'epoch_src';
const Noted = defineEvent('EpochNoted', 1, z.object({ n: z.number() }));
const PSK = Buffer.alloc(32, 7).toString('base64');

/**
 * The primary's epoch on every frame, over the real cluster connection: a primary's listener
 * (TLS-PSK on a local port, streaming a real event log from Postgres) and a secondary's stream
 * client applying into its replica copy. The secondary records a newer epoch, and a secondary
 * that has seen a later epoch gets nothing from a superseded primary.
 */
describe('replication stream: epoch per frame (TLS-PSK + Postgres + NATS)', () => {
  let database: TestDatabase;
  let handle: DbHandle;
  let transport: Transport;
  let runtime: ServiceRuntime;
  let listener: ClusterListener | undefined;
  let client: StreamClient | undefined;
  const primaryState: { current: ModeState } = { current: initialModeState('dr') };
  let clusterAddr = '';

  beforeAll(async () => {
    database = await createTestDatabase('repl_epoch');
    handle = createPgDb(database.url, { max: 5 });
    transport = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: uniqueSubjectPrefix('repl-epoch'),
      name: 'repl-epoch',
    });
    const barrier = new Barrier();
    barrier.load(createKeyring());
    runtime = {
      db: handle.db,
      schema: REPLICATION_SCHEMA,
      transport,
      cipher: barrier,
      clock: () => new Date(),
    };
    await migrateSchema(handle.db, REPLICATION_SCHEMA, replicationMigrations);
    await migrateSchema(handle.db, SOURCE, {});
    const store = new EventStore({
      db: handle.db,
      schema: SOURCE,
      cipher: barrier,
      registry: new EventRegistry([Noted]),
    });
    for (let n = 1; n <= 3; n++)
      await store.append(`noted/${n}`, [{ type: 'EpochNoted', version: 1, data: { n } }], {
        expectedVersion: 0,
        project: async () => undefined,
      });
    clusterAddr = `127.0.0.1:${await freePort()}`;
  });

  afterEach(async () => {
    client?.stop();
    client = undefined;
    await listener?.stop();
    listener = undefined;
  });

  afterAll(async () => {
    await transport?.close();
    await handle?.close();
    await database?.drop();
  });

  const primaryAt = (epoch: number): ModeState => ({
    ...initialModeState('dr'),
    state: 'primary',
    clusterId: 'set-1',
    secondaries: [{ id: 'b', psk: PSK, expiresAtMs: Date.now() + 60_000 }],
    epoch,
  });

  async function startPrimary(epoch: number): Promise<void> {
    primaryState.current = primaryAt(epoch);
    listener = new ClusterListener({
      wal: new WalSource(runtime),
      status: new StreamStatus(),
      stateOf: () => primaryState.current,
      filterFor: () => undefined,
      keyrings: async () => [],
      stepDown: async () => undefined,
      attachments: async () => [],
      forward: async () => Promise.reject(new Error('not forwarding here')),
    });
    await listener.start(clusterAddr);
  }

  const db = () => new ReplicationDb(runtime);
  const copied = async (): Promise<number> =>
    (await new ReplicaLogRepository(db()).positions('dr')).find((p) => p.source === SOURCE)?.lastWal ?? 0;

  function startSecondary(epoch: number, observed: number[], status: StreamStatus): void {
    const link: PrimaryLink = {
      clusterId: 'set-1',
      secondaryId: 'b',
      primaryClusterAddr: clusterAddr,
      primaryApiAddr: 'http://127.0.0.1:1',
      psk: PSK,
    };
    client = new StreamClient('dr', link, {
      replica: new ReplicaSink(new ReplicaLogRepository(db()), runtime),
      keyrings: new ReplicaKeyringsRepository(db(), runtime),
      status,
      apiAddr: 'http://127.0.0.1:2',
      clusterAddr: '127.0.0.1:3',
      epoch,
      observeEpoch: async (_mode, seen) => {
        observed.push(seen);
      },
    });
    client.start();
  }

  it('a secondary records the newer epoch its primary stamps, then applies the stream', async () => {
    await startPrimary(2);
    const observed: number[] = [];
    const status = new StreamStatus();
    startSecondary(1, observed, status);
    await waitFor(async () => (await copied()) === 3, { timeoutMs: 20_000 });
    expect(observed).toEqual([2]);
    expect(status.primary('dr').refused).toBeNull();
  });

  it('a secondary that has seen a later epoch takes nothing from a superseded primary', async () => {
    await new ReplicaLogRepository(db()).wipe('dr');
    await startPrimary(1);
    const observed: number[] = [];
    const status = new StreamStatus();
    startSecondary(3, observed, status);
    await waitFor(() => status.primary('dr').refused !== null, { timeoutMs: 20_000 });
    expect(status.primary('dr').refused).toMatch(/epoch 1\) was superseded: the secondary has seen epoch 3/);
    expect(await copied()).toBe(0);
    expect(observed).toEqual([]);
  });
});
