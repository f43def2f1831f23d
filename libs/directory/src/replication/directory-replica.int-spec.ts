import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  engineHistoryState,
  engineLeaseContracts,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { directory } from '@coffer/contracts/directory';
import {
  replicaApplyContract,
  replicaExportContract,
  replicaFoldContract,
  replicaOpenContract,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import {
  createPgDb,
  EventRegistry,
  EventStore,
  migrateSchema,
  openedReplicaEvent,
  openReplicaRows,
  type DbHandle,
} from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  startSlapd,
  uniqueSubjectPrefix,
  type Slapd,
  type TestDatabase,
  historyInstant,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { DIRECTORY_SCHEMA } from '../directory.di';
import { DirectoryModule } from '../directory.module';
import { directoryMigrations } from '../migrations';
import { RotationSweep } from '../rotation/rotation-sweep.service';

jest.setTimeout(90_000);

interface Cluster {
  name: string;
  app: INestMicroservice;
  transport: Transport;
  client: Transport;
  handle: DbHandle;
  database: TestDatabase;
  barrier: Barrier;
  /** added to the service's clock */
  clock: { offsetMs: number };
}

type Answer = { data: any; secret?: any; status?: number; warnings?: string[] };

/**
 * Three directory services, each with its own database, barrier keyring and subjects, against one
 * real slapd: the primary's log is shipped as the replication service ships it (rows as stored,
 * payloads opened with the primary's keyring) to a DR and a performance secondary, whose directory
 * services replay it with their own record projection into their replica log.
 */
describe('directory replica: the primary log replayed on secondaries (Postgres, NATS, slapd)', () => {
  let slapd: Slapd;
  let primary: Cluster;
  let dr: Cluster;
  let perf: Cluster;
  let log: EventStore;
  const mount: MountInfo = {
    path: 'directory/',
    uuid: randomUUID(),
    accessor: 'directory_repl',
    type: 'directory',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };

  async function startCluster(name: string): Promise<Cluster> {
    const database = await createTestDatabase(`directory-repl-${name}`);
    await migrateSchema(database.db, DIRECTORY_SCHEMA, directoryMigrations);
    const handle = createPgDb(database.url, { max: 5 });
    const prefix = uniqueSubjectPrefix(`directory-repl-${name}`);
    const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name });
    const client = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: prefix,
      name: `${name}-c`,
    });
    const barrier = new Barrier();
    barrier.load(createKeyring());
    const clock = { offsetMs: 0 };
    const runtime = {
      db: handle.db,
      schema: DIRECTORY_SCHEMA,
      transport,
      cipher: barrier,
      clock: () => new Date(Date.now() + clock.offsetMs),
    };
    const app = await createServiceApp(DirectoryModule.register(runtime), transport, 'directory', {
      logger: false,
    });
    return { name, app, transport, client, handle, database, barrier, clock };
  }

  const headers = () =>
    encodeContext({
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      tokenRef: 'root-ref',
      entityId: 'entity-1',
      root: true,
    });
  const call = (c: Cluster, contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    c.client.request(
      contract,
      { operation, mount, path, params, body, query: {}, headers: {} },
      { headers: headers() },
    ) as Promise<Answer>;
  const fail = (c: Cluster, contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    call(c, contract, operation, path, body, params).then(
      () => {
        throw new Error(`${contract.subject} succeeded on ${c.name}`);
      },
      (error: unknown) => error,
    );
  const creds = (c: Cluster, name: string) => call(c, directory.creds, 'read', `creds/${name}`, {}, { name });

  const primaryRows = async () =>
    (await log.readRawFrom(0, 10_000)).map((r) => openedReplicaEvent(primary.barrier, DIRECTORY_SCHEMA, r));

  /** directory.history.state of a path of the mount on `c` at `at`, as core-sys asks it. */
  const historyOf = (c: Cluster, at: string, path: string) =>
    c.client.request(engineHistoryState('directory'), {
      mount_uuid: mount.uuid,
      mount_type: 'directory',
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });
  const HISTORY_PATHS = ['config', 'roles', 'roles/app', 'roles/hist', 'library', 'library/team'];
  /** instants with a history: before anything, after the first writes, after each write of a role */
  const instants: string[] = [new Date(0).toISOString()];
  /** Each of `secondaries` answers the history of HISTORY_PATHS at every instant as the primary does. */
  const historyAsPrimary = async (secondaries: readonly Cluster[]) => {
    for (const at of instants) {
      for (const path of HISTORY_PATHS) {
        const expected = await historyOf(primary, at, path);
        for (const c of secondaries) expect(await historyOf(c, at, path)).toEqual(expected);
      }
    }
  };

  /** One round of the replication service: from the secondary's head to the primary's. */
  async function ship(to: Cluster, mode: ReplicationMode) {
    const head = await to.client.request(replicaApplyContract(DIRECTORY_SCHEMA), { op: 'head' });
    const events = (await primaryRows()).filter((e) => e.wal > head.lastWal);
    if (events.length === 0) return head;
    // as the primary's replication service asks: the log holds everything, nothing is attached
    const exported = await primary.client.request(replicaExportContract(DIRECTORY_SCHEMA), {
      events: events.map(({ wal, type, schemaVersion, data }) => ({ wal, type, schemaVersion, data })),
    });
    expect(exported.attachments).toEqual([]);
    return to.client.request(replicaApplyContract(DIRECTORY_SCHEMA), {
      op: 'apply',
      mode,
      events,
      attachments: {},
    });
  }

  beforeAll(async () => {
    slapd = await startSlapd(['svc1', 'svc2', 'svc3', 'lib1', 'lib2']);
    primary = await startCluster('primary');
    dr = await startCluster('dr');
    perf = await startCluster('perf');
    log = new EventStore({
      db: primary.handle.db,
      schema: DIRECTORY_SCHEMA,
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    // the secondaries' replication service: opens their replica logs' rows with the primary's keyring
    for (const c of [dr, perf]) {
      c.transport.serve(replicaOpenContract, 'replication', (req) =>
        openReplicaRows(c.handle.db, req, primary.barrier),
      );
    }
    await call(primary, directory.configWrite, 'update', 'config', {
      url: slapd.url,
      binddn: slapd.binddn,
      bindpass: slapd.bindpass,
      userdn: slapd.userdn,
      schema: 'openldap',
    });
    await call(
      primary,
      directory.roleWrite,
      'update',
      'roles/app',
      { service_account_name: 'svc1', ttl: 3600 },
      { name: 'app' },
    );
    await creds(primary, 'app'); // the first read rotates: only Coffer knows it now
    await call(
      primary,
      directory.setWrite,
      'update',
      'library/team',
      { service_account_names: ['lib1', 'lib2'] },
      { name: 'team' },
    );
  });
  afterAll(async () => {
    for (const c of [primary, dr, perf]) {
      if (!c) continue;
      await c.app.close().catch(() => undefined);
      await c.client.close();
      await c.transport.close();
      await c.handle.close();
      await c.database.drop();
    }
    await slapd?.stop();
  });

  it('serves the config, roles, static-role passwords and library sets of the primary in both modes', async () => {
    const out = await call(
      primary,
      directory.checkOut,
      'update',
      'library/team/check-out',
      {},
      { name: 'team' },
    );
    for (const [c, mode] of [
      [dr, 'dr'],
      [perf, 'performance'],
    ] as const) {
      expect(await ship(c, mode)).toEqual(await log.head());
      const read = (x: Cluster, contract: Contract, path: string, params = {}) =>
        call(x, contract, 'read', path, {}, params).then((a) => a.data);
      expect(await read(c, directory.configRead, 'config')).toEqual(
        await read(primary, directory.configRead, 'config'),
      );
      expect(await read(c, directory.roleRead, 'roles/app', { name: 'app' })).toEqual(
        await read(primary, directory.roleRead, 'roles/app', { name: 'app' }),
      );
      expect((await call(c, directory.roleList, 'list', 'roles')).data).toEqual({ keys: ['app'] });
      expect(await read(c, directory.setRead, 'library/team', { name: 'team' })).toEqual(
        await read(primary, directory.setRead, 'library/team', { name: 'team' }),
      );
      expect(await read(c, directory.status, 'library/team/status', { name: 'team' })).toEqual(
        await read(primary, directory.status, 'library/team/status', { name: 'team' }),
      );
      // the static role's password the primary set: served as it is, and the directory takes it
      const served = (await creds(c, 'app')).data;
      expect(served).toEqual((await creds(primary, 'app')).data);
      expect(await slapd.binds(slapd.dnOf('svc1'), served.current_password)).toBe(true);
    }
    expect(await slapd.binds(slapd.dnOf(out.data.service_account_name), out.data.password)).toBe(true);
  });

  it("answers the history of the primary's config, roles and library sets on both secondaries as the primary does", async () => {
    instants.push(await historyInstant());
    const hist = (ttl: number) =>
      call(
        primary,
        directory.roleWrite,
        'update',
        'roles/hist',
        { service_account_name: 'svc3', ttl },
        { name: 'hist' },
      );
    await hist(3600);
    instants.push(await historyInstant());
    await hist(7200);
    instants.push(await historyInstant());
    await ship(dr, 'dr');
    await ship(perf, 'performance');
    await historyAsPrimary([dr, perf]);
    expect((await historyOf(perf, instants[1] ?? '', 'roles/hist')).found).toBe(false);
    expect((await historyOf(perf, instants[2] ?? '', 'roles/hist')).state).toMatchObject({ ttl: 3600 });
    expect((await historyOf(perf, instants[3] ?? '', 'roles/hist')).state).toMatchObject({ ttl: 7200 });
    expect((await historyOf(dr, instants[0] ?? '', 'config')).found).toBe(false);
  });

  it('applies a redelivered batch once', async () => {
    const rows = await primaryRows();
    const head = await log.head();
    const again = await perf.client.request(replicaApplyContract(DIRECTORY_SCHEMA), {
      op: 'apply',
      mode: 'performance',
      events: rows.slice(-3),
      attachments: {},
    });
    expect(again).toEqual(head);
    expect((await creds(perf, 'app')).data).toEqual((await creds(primary, 'app')).data);
  });

  it('leaves what the primary rotates to the primary on a performance secondary', async () => {
    await call(
      primary,
      directory.roleWrite,
      'update',
      'roles/fresh',
      { service_account_name: 'svc2' },
      { name: 'fresh' },
    );
    await ship(perf, 'performance');
    const before = (await creds(primary, 'app')).data.current_password as string;
    // a role the primary never rotated: its creds read would rotate, which is the primary's to do
    expect(await fail(perf, directory.creds, 'read', 'creds/fresh', {}, { name: 'fresh' })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('rotated on the primary'),
    });
    expect(await slapd.binds(slapd.dnOf('svc2'), 'initial-svc2')).toBe(true);
    expect(
      await fail(perf, directory.checkOut, 'update', 'library/team/check-out', {}, { name: 'team' }),
    ).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('check accounts out on the primary'),
    });
    expect(await fail(perf, directory.rotateRoot, 'read', 'rotate-root')).toMatchObject({
      code: 'invalid_request',
      message: 'cannot write to readonly storage',
    });
    // the sweep past every ttl, and the end of a check-out's lease: nothing changes here
    const { data: status } = await call(
      perf,
      directory.status,
      'read',
      'library/team/status',
      {},
      { name: 'team' },
    );
    const lent = Object.keys(status).find((name) => status[name].available === false) as string;
    perf.clock.offsetMs = 10 * 24 * 3600_000;
    try {
      await perf.app.get(RotationSweep).sweep();
    } finally {
      perf.clock.offsetMs = 0;
    }
    await perf.client.request(
      engineLeaseContracts('directory').revoke,
      {
        lease_id: 'directory/library/team/check-out/x',
        mount,
        internal: { set: 'team', account: lent, checkout_id: await checkoutIdOf(lent) },
        issue_time: new Date().toISOString(),
      },
      { headers: headers() },
    );
    expect((await creds(perf, 'app')).data.current_password).toBe(before);
    expect(await slapd.binds(slapd.dnOf('svc1'), before)).toBe(true);
    expect(
      (await call(perf, directory.status, 'read', 'library/team/status', {}, { name: 'team' })).data,
    ).toEqual(status);
    expect(await perf.client.request(replicaApplyContract(DIRECTORY_SCHEMA), { op: 'head' })).toEqual(
      await log.head(),
    );
  });

  /** The check-out id the primary's log holds for `account` (a lease's internal data). */
  async function checkoutIdOf(account: string): Promise<string> {
    const rows = await primaryRows();
    const out = rows
      .filter((r) => r.type === 'DirectoryAccountCheckedOut' && r.stream.endsWith(`/${account}`))
      .at(-1);
    return (out?.data as { checkout_id: string }).checkout_id;
  }

  it('folds the replica log into a promoted DR secondary once; its own writes then rotate', async () => {
    await ship(dr, 'dr');
    const fold = replicaFoldContract(DIRECTORY_SCHEMA);
    const rows = await primaryRows();
    const events = rows.map(({ wal, stream, streamVersion, type, schemaVersion, data }) => ({
      wal,
      stream,
      streamVersion,
      type,
      schemaVersion,
      data,
    }));
    const through = rows.at(-1)?.wal ?? 0;
    const first = await dr.client.request(fold, { op: 'fold', mode: 'dr', events, through });
    expect(first).toEqual({ foldedThrough: through, appended: rows.length });
    const second = await dr.client.request(fold, { op: 'fold', mode: 'dr', events, through });
    expect(second).toEqual({ foldedThrough: through, appended: 0 });

    // the promoted cluster rotates the primary's role, its bind password and checks an account in
    const before = (await creds(dr, 'app')).data.current_password as string;
    await call(dr, directory.rotateRole, 'update', 'rotate-role/app', {}, { name: 'app' });
    const after = (await creds(dr, 'app')).data;
    expect(after).toMatchObject({ last_password: before });
    expect(await slapd.binds(slapd.dnOf('svc1'), after.current_password)).toBe(true);
    expect(await slapd.binds(slapd.dnOf('svc1'), before)).toBe(false);
    const fresh = (await creds(dr, 'fresh')).data.current_password as string;
    expect(await slapd.binds(slapd.dnOf('svc2'), fresh)).toBe(true);
    expect((await call(dr, directory.rotateRoot, 'update', 'rotate-root')).status).toBe(204);
    await call(
      dr,
      directory.roleWrite,
      'update',
      'roles/app',
      { service_account_name: 'svc1', ttl: 7200 },
      { name: 'app' },
    );
    expect((await call(dr, directory.roleRead, 'read', 'roles/app', {}, { name: 'app' })).data).toMatchObject(
      { ttl: 7200 },
    );
    const checkIn = await call(
      dr,
      directory.manageCheckIn,
      'update',
      'library/manage/team/check-in',
      {},
      { name: 'team' },
    );
    expect(checkIn.data.check_ins).toHaveLength(1);
    const { data: status } = await call(
      dr,
      directory.status,
      'read',
      'library/team/status',
      {},
      { name: 'team' },
    );
    expect(Object.values(status)).toEqual([{ available: true }, { available: true }]);
    // history after the fold: the primary's events at their own times, then the cluster's own writes
    await historyAsPrimary([dr]);
    const now = await historyInstant();
    expect((await historyOf(dr, now, 'roles/app')).state).toMatchObject({ ttl: 7200 });
  });
});
