import { randomUUID } from 'node:crypto';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { INestMicroservice } from '@nestjs/common';
import { sql } from 'kysely';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreLeasesHeld,
  encodeContext,
  engineHistoryState,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { cloudA } from '@coffer/contracts/cloud-a';
import { cloudB } from '@coffer/contracts/cloud-b';
import {
  replicaApplyContract,
  replicaExportContract,
  replicaFoldContract,
  replicaLogSchemaOf,
  replicaOpenContract,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import {
  createPgDb,
  EventRegistry,
  EventStore,
  migrateSchema,
  openedReplicaEvent,
  openReplicaPayload,
  openReplicaRows,
  type DbHandle,
} from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  startAwsServer,
  uniqueSubjectPrefix,
  type AwsServer,
  type TestDatabase,
  historyInstant,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { CLOUD_CREDS_SCHEMA } from '../cloud-creds.di';
import { CloudCredsModule } from '../cloud-creds.module';
import { cloudCredsMigrations } from '../cloud-creds.parts';
import { CloudARecordStore } from '../cloud-a/records/cloud-a-record.store';
import { CloudBRecordStore } from '../cloud-b/records/cloud-b-record.store';
import { CloudBRecovery } from '../cloud-b/recovery/cloud-b-recovery.service';
import { CloudARecoverySweep } from '../cloud-a/creds/cloud-a-recovery.sweep';

jest.setTimeout(90_000);

const mountOf = (type: 'cloud-a' | 'cloud-b'): MountInfo => ({
  path: `${type}/`,
  uuid: randomUUID(),
  accessor: `${type.replace('-', '_')}_repl`,
  type,
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
});

/** One cloud-creds service with its own database, NATS prefix and barrier keyring. */
interface Service {
  database: TestDatabase;
  db: DbHandle;
  transport: Transport;
  client: Transport;
  app: INestMicroservice;
  barrier: Barrier;
  /** moves the service's clock */
  clockOffsetMs: number;
  call(
    contract: Contract,
    mount: MountInfo,
    operation: string,
    path: string,
    body?: object,
    params?: object,
  ): Promise<any>;
  close(): Promise<void>;
}

async function startService(label: string): Promise<Service> {
  const database = await createTestDatabase(label);
  await migrateSchema(database.db, CLOUD_CREDS_SCHEMA, cloudCredsMigrations);
  const prefix = uniqueSubjectPrefix(label);
  const db = createPgDb(database.url, { max: 5 });
  const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: label });
  const client = await connectNatsTransport({
    servers: natsUrl(),
    subjectPrefix: prefix,
    name: `${label}-c`,
  });
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const service = { clockOffsetMs: 0 } as Service;
  const runtime = {
    db: db.db,
    schema: CLOUD_CREDS_SCHEMA,
    transport,
    cipher: barrier,
    clock: () => new Date(Date.now() + service.clockOffsetMs),
  };
  const app = await createServiceApp(CloudCredsModule.register(runtime), transport, 'cloud-creds', {
    logger: false,
  });
  const headers = () =>
    encodeContext({
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      displayName: 'root',
      root: true,
    });
  return Object.assign(service, {
    database,
    db,
    transport,
    client,
    app,
    barrier,
    call: (contract: Contract, mount: MountInfo, operation: string, path: string, body = {}, params = {}) =>
      client.request(
        contract,
        { operation, mount, path, params, body, query: {}, headers: {} },
        { headers: headers() },
      ) as Promise<any>,
    close: async () => {
      await app.close().catch(() => undefined);
      await client.close();
      await transport.close();
      await db.close();
      await database.drop();
    },
  });
}

/**
 * Three cloud-creds services (a primary, its DR secondary, its performance secondary), each with
 * its own database and keyring: the primary's log is shipped as the replication service ships it
 * (rows as stored, payloads opened with the primary's keyring) and each secondary replays it in
 * its mode with the engine's own projections, into its `cloud_creds_replica` log.
 */
describe('cloud-creds replica: the primary log replayed on DR and performance secondaries (NATS + Postgres)', () => {
  let aws: AwsServer;
  let primary: Service;
  let dr: Service;
  let perf: Service;
  let log: EventStore;
  const a = mountOf('cloud-a');
  const b = mountOf('cloud-b');
  let issuedUser = '';
  const credId = randomUUID();

  beforeAll(async () => {
    aws = await startAwsServer();
    primary = await startService('cloud_repl_primary');
    dr = await startService('cloud_repl_dr');
    perf = await startService('cloud_repl_perf');
    log = new EventStore({
      db: primary.db.db,
      schema: CLOUD_CREDS_SCHEMA,
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    // the secondaries' replication service: opens their replica logs' rows with the primary's keyring
    for (const s of [dr, perf]) {
      s.transport.serve(replicaOpenContract, 'replication', (req) =>
        openReplicaRows(s.db.db, req, primary.barrier),
      );
    }
  });
  afterAll(async () => {
    await primary?.close();
    await dr?.close();
    await perf?.close();
    await aws?.stop();
  });

  /** One round of the replication service: the primary's rows after the secondary's head. */
  async function ship(to: Service, mode: ReplicationMode, fromWal?: number) {
    const apply = replicaApplyContract(CLOUD_CREDS_SCHEMA);
    const head = await to.client.request(apply, { op: 'head' });
    const rows = await log.readRawFrom(fromWal ?? head.lastWal, 1000);
    if (rows.length === 0) return head;
    // the primary's service is asked what the rows need beyond the log: nothing (sealed in the log)
    const exported = await primary.client.request(replicaExportContract(CLOUD_CREDS_SCHEMA), {
      events: rows.map((r) => ({
        wal: r.wal,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, CLOUD_CREDS_SCHEMA, r),
      })),
    });
    expect(exported.attachments).toEqual([]);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, CLOUD_CREDS_SCHEMA, r));
    return to.client.request(apply, { op: 'apply', mode, events, attachments: {} });
  }

  /** What every cluster should answer the same: the mounts' config and roles. */
  const replicated = async (s: Service) => ({
    root: (await s.call(cloudB.rootRead, b, 'read', 'config/root')).data,
    lease: (await s.call(cloudB.leaseRead, b, 'read', 'config/lease')).data,
    roles: (await s.call(cloudB.roleList, b, 'list', 'roles')).data,
    role: (await s.call(cloudB.roleRead, b, 'read', 'roles/deploy', {}, { name: 'deploy' })).data,
    azure: (await s.call(cloudA.configRead, a, 'read', 'config')).data,
    azureRole: (await s.call(cloudA.roleRead, a, 'read', 'roles/r', {}, { name: 'r' })).data,
  });
  /** cloud-creds.history.state of a path of `mount` on `s` at `at`, as core-sys asks it. */
  const historyOf = (s: Service, mount: MountInfo, at: string, path: string) =>
    s.client.request(engineHistoryState('cloud-creds'), {
      mount_uuid: mount.uuid,
      mount_type: mount.type,
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });
  const HISTORY_PATHS: Array<[MountInfo, string]> = [
    [b, 'config/root'],
    [b, 'config/lease'],
    [b, 'roles'],
    [b, 'roles/deploy'],
    [b, 'roles/hist'],
    [a, 'config'],
    [a, 'roles'],
    [a, 'roles/r'],
  ];
  /** instants with a history: before anything, after the first test's writes, after each write of a role */
  const instants: string[] = [new Date(0).toISOString()];
  /** Each of `secondaries` answers the history of HISTORY_PATHS at every instant as the primary does. */
  const historyAsPrimary = async (secondaries: readonly Service[]) => {
    for (const at of instants) {
      for (const [mount, path] of HISTORY_PATHS) {
        const expected = await historyOf(primary, mount, at, path);
        for (const s of secondaries) expect(await historyOf(s, mount, at, path)).toEqual(expected);
      }
    }
  };
  const userOf = (s: Service, name: string) => s.app.get(CloudBRecordStore).get(b.uuid, 'user', name);
  const credOf = (s: Service) => s.app.get(CloudARecordStore).get(a.uuid, 'cred', credId);

  it('serves the primary config and roles on both secondaries; issued credentials only on the DR one', async () => {
    await primary.call(cloudB.rootWrite, b, 'update', 'config/root', {
      access_key: aws.rootAccessKey,
      secret_key: aws.rootSecretKey,
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
      request_timeout: 2,
    });
    await primary.call(cloudB.leaseWrite, b, 'update', 'config/lease', { lease: '1h', lease_max: '2h' });
    await primary.call(
      cloudB.roleWrite,
      b,
      'update',
      'roles/deploy',
      { credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess' },
      { name: 'deploy' },
    );
    const issued = await primary.call(cloudB.creds, b, 'read', 'creds/deploy', {}, { name: 'deploy' });
    issuedUser = issued.secret.internal.username as string;
    await primary.call(cloudA.configWrite, a, 'update', 'config', {
      subscription_id: 'sub',
      tenant_id: 'tenant',
      client_id: 'client',
      client_secret: 'azure-secret-of-the-primary',
    });
    // a role and an issued credential, through cloud-a's own store (resolving them needs Azure)
    const store = primary.app.get(CloudARecordStore);
    await store.append(a.uuid, 'role', 'r', 0, [
      {
        type: 'CloudARoleWritten',
        data: {
          role: {
            roles: [{ role_name: 'Reader', role_id: 'reader-id', scope: '/subscriptions/sub' }],
            groups: [],
            application_object_id: '',
            application_id: '',
            ttl: 3600,
            max_ttl: 7200,
          },
        },
      },
    ]);
    const plan = {
      role: 'r',
      static: false,
      display_name: `coffer-r-${credId}`,
      application_object_id: '',
      assignments: [],
      groups: [],
      pending_until: new Date(Date.now() + 60_000).toISOString(),
    };
    await store.append(a.uuid, 'cred', credId, 0, [
      { type: 'CloudACredentialIntended', data: plan },
      { type: 'CloudACredentialIssued', data: { at: new Date().toISOString() } },
    ]);

    const expected = await replicated(primary);
    expect(expected.role).toMatchObject({ credential_type: 'iam_user' });
    expect((await ship(dr, 'dr')).lastWal).toBe((await log.head()).lastWal);
    expect((await ship(perf, 'performance')).lastWal).toBe((await log.head()).lastWal);
    expect(await replicated(dr)).toEqual(expected);
    expect(await replicated(perf)).toEqual(expected);

    // DR takes what the primary issued (it becomes the primary); a performance secondary does not
    expect((await userOf(dr, issuedUser))?.state.status).toBe('issued');
    expect(await userOf(perf, issuedUser)).toBeUndefined();
    expect((await credOf(dr))?.state.phase).toBe('issued');
    expect(await credOf(perf)).toBeUndefined();

    // the secrets stay sealed, by each secondary's own barrier
    for (const s of [dr, perf]) {
      const { rows } = await sql<{ body: Buffer }>`select body from cloud_creds.cloud_b_records`.execute(
        s.db.db,
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.body.toString('utf8')).not.toContain(aws.rootSecretKey);
    }
  });

  it("answers the history of the primary's config and roles on both secondaries as the primary does", async () => {
    instants.push(await historyInstant());
    const hist = (path: string) =>
      primary.call(
        cloudB.roleWrite,
        b,
        'update',
        'roles/hist',
        {
          credential_type: 'iam_user',
          policy_arns: 'arn:aws:iam::aws:policy/ReadOnlyAccess',
          user_path: path,
        },
        { name: 'hist' },
      );
    await hist('/h1/');
    instants.push(await historyInstant());
    await hist('/h2/');
    instants.push(await historyInstant());
    await ship(dr, 'dr');
    await ship(perf, 'performance');
    await historyAsPrimary([dr, perf]);
    expect((await historyOf(perf, b, instants[1] ?? '', 'roles/hist')).found).toBe(false);
    expect((await historyOf(perf, b, instants[2] ?? '', 'roles/hist')).state).toMatchObject({
      user_path: '/h1/',
    });
    expect((await historyOf(perf, b, instants[3] ?? '', 'roles/hist')).state).toMatchObject({
      user_path: '/h2/',
    });
    expect((await historyOf(dr, a, instants[1] ?? '', 'config')).state).toMatchObject({
      tenant_id: 'tenant',
    });
  });

  it('applies a batch again without changing anything (idempotent)', async () => {
    const before = { dr: await replicated(dr), perf: await replicated(perf) };
    const head = await log.head();
    expect(await ship(dr, 'dr', 0)).toEqual(head);
    expect(await ship(perf, 'performance', 0)).toEqual(head);
    expect({ dr: await replicated(dr), perf: await replicated(perf) }).toEqual(before);
  });

  it('issues credentials on the performance secondary with the primary root credentials, locally', async () => {
    const callsBefore = aws.calls.length;
    const res = await perf.call(cloudB.creds, b, 'read', 'creds/deploy', {}, { name: 'deploy' });
    const name = res.secret.internal.username as string;
    expect(res.secret).toMatchObject({ ttl: 3600, max_ttl: 7200 });
    expect(aws.calls.slice(callsBefore).every((c) => c.accessKeyId === aws.rootAccessKey)).toBe(true);
    // the key works against the local STS (SigV4 with the issued key)
    const sts = new STSClient({
      region: 'us-east-1',
      endpoint: aws.url,
      credentials: { accessKeyId: res.data.access_key, secretAccessKey: res.data.secret_key },
    });
    const who = await sts.send(new GetCallerIdentityCommand({}));
    sts.destroy();
    expect(who.Arn).toBe(res.data.arn);
    // its record is the secondary's own (its own log): never the primary's
    expect((await userOf(perf, name))?.state.status).toBe('issued');
    expect(await userOf(primary, name)).toBeUndefined();
  });

  it("leaves the primary's records to the primary: a secondary's recovery passes act on none of them", async () => {
    // past every deadline and grace, with core-sys holding no lease: a primary would undo them
    const asked: string[][] = [];
    const noLeases = dr.client.serve(coreLeasesHeld, 'core-sys', (req) => {
      asked.push(req.values);
      return Promise.resolve({ held: [] });
    });
    dr.clockOffsetMs = 10 * 60_000;
    try {
      expect(await dr.app.get(CloudBRecovery).sweep()).toBe(0);
      expect(await dr.app.get(CloudARecoverySweep).sweep()).toBe(0);
    } finally {
      dr.clockOffsetMs = 0;
      noLeases.unsubscribe();
    }
    expect(asked).toEqual([]);
    expect(aws.users.has(issuedUser)).toBe(true);
    expect((await userOf(dr, issuedUser))?.state.status).toBe('issued');
    expect((await credOf(dr))?.state.phase).toBe('issued');
  });

  it('folds the replica log into the DR secondary own log once at promotion; local writes then succeed', async () => {
    const replicaLog = new EventStore({
      db: dr.db.db,
      schema: replicaLogSchemaOf(CLOUD_CREDS_SCHEMA),
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    const rows = await replicaLog.readRawFrom(0, 1000);
    expect(rows.map((r) => r.hash)).toEqual((await log.readRawFrom(0, 1000)).map((r) => r.hash));
    const events = rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      streamVersion: r.streamVersion,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(primary.barrier, CLOUD_CREDS_SCHEMA, r),
    }));
    const fold = replicaFoldContract(CLOUD_CREDS_SCHEMA);
    const through = rows.at(-1)?.wal ?? 0;
    expect(await dr.client.request(fold, { op: 'position' })).toEqual({ foldedThrough: 0, appended: 0 });
    const first = await dr.client.request(fold, { op: 'fold', mode: 'dr', events, through });
    expect(first).toEqual({ foldedThrough: through, appended: rows.length });
    expect(await dr.client.request(fold, { op: 'fold', mode: 'dr', events, through })).toEqual({
      foldedThrough: through,
      appended: 0,
    });

    // writes to replicated records append at the versions the read model holds
    await dr.call(cloudB.roleWrite, b, 'update', 'roles/deploy', { user_path: '/dr/' }, { name: 'deploy' });
    expect(
      (await dr.call(cloudB.roleRead, b, 'read', 'roles/deploy', {}, { name: 'deploy' })).data,
    ).toMatchObject({ user_path: '/dr/', credential_type: 'iam_user' });
    await dr.call(cloudB.leaseWrite, b, 'update', 'config/lease', { lease: '30m', lease_max: '1h' });
    await dr.call(cloudA.configWrite, a, 'update', 'config', { password_policy: 'after-promotion' });
    expect((await dr.call(cloudA.configRead, a, 'read', 'config')).data).toMatchObject({
      tenant_id: 'tenant',
      password_policy: 'after-promotion',
    });
    // history after the fold: the primary's events at their own times, then the cluster's own writes
    await historyAsPrimary([dr]);
    const now = await historyInstant();
    expect((await historyOf(dr, b, now, 'roles/deploy')).state).toMatchObject({ user_path: '/dr/' });
    expect((await historyOf(dr, a, now, 'config')).state).toMatchObject({
      password_policy: 'after-promotion',
    });
    // the primary's issued user is the promoted cluster's now: its lease check confirms it
    const held = dr.client.serve(coreLeasesHeld, 'core-sys', (req) => Promise.resolve({ held: req.values }));
    try {
      dr.clockOffsetMs = 60_000;
      await dr.app.get(CloudBRecovery).sweep();
    } finally {
      dr.clockOffsetMs = 0;
      held.unsubscribe();
    }
    expect((await userOf(dr, issuedUser))?.state.status).toBe('leased');
    // creds on the promoted cluster, with the primary's root credentials
    const res = await dr.call(cloudB.creds, b, 'read', 'creds/deploy', {}, { name: 'deploy' });
    expect(aws.users.get(res.secret.internal.username as string)?.path).toBe('/dr/');
  });

  it('folds only what a performance secondary projected (config and roles, not issued credentials)', async () => {
    const replicaLog = new EventStore({
      db: perf.db.db,
      schema: replicaLogSchemaOf(CLOUD_CREDS_SCHEMA),
      cipher: primary.barrier,
      registry: new EventRegistry([]),
    });
    const rows = await replicaLog.readRawFrom(0, 1000);
    const events = rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      streamVersion: r.streamVersion,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(primary.barrier, CLOUD_CREDS_SCHEMA, r),
    }));
    const local = events.filter(
      (e) => e.stream.startsWith('cloud-b-user/') || e.stream.startsWith('cloud-a-cred/'),
    );
    expect(local.length).toBeGreaterThan(0);
    const res = await perf.client.request(replicaFoldContract(CLOUD_CREDS_SCHEMA), {
      op: 'fold',
      mode: 'performance',
      events,
      through: rows.at(-1)?.wal ?? 0,
    });
    expect(res.appended).toBe(events.length - local.length);
  });

  it('wipes a secondary: the replicated records and the replica log are gone', async () => {
    const apply = replicaApplyContract(CLOUD_CREDS_SCHEMA);
    expect(await perf.client.request(apply, { op: 'wipe', mode: 'performance' })).toMatchObject({
      lastWal: 0,
    });
    await expect(perf.call(cloudB.rootRead, b, 'read', 'config/root')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(perf.call(cloudA.configRead, a, 'read', 'config')).rejects.toMatchObject({
      code: 'not_found',
    });
    // streamed again from 0, it serves the primary's again
    await ship(perf, 'performance');
    expect(
      (await perf.call(cloudB.roleRead, b, 'read', 'roles/deploy', {}, { name: 'deploy' })).data,
    ).toEqual((await primary.call(cloudB.roleRead, b, 'read', 'roles/deploy', {}, { name: 'deploy' })).data);
  });
});
