import { randomUUID } from 'node:crypto';
import { CreateAccessKeyCommand, CreateUserCommand, IAMClient } from '@aws-sdk/client-iam';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreLeasesHeld,
  encodeContext,
  engineHistoryState,
  engineLeaseContracts,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { cloudB } from '@coffer/contracts/cloud-b';
import { createPgDb, migrateSchema, type DbHandle, type EventStore } from '@coffer/event-store';
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
import { CLOUD_CREDS_EVENT_STORE, CLOUD_CREDS_SCHEMA } from '../cloud-creds.di';
import { CloudCredsModule } from '../cloud-creds.module';
import { cloudCredsMigrations } from '../cloud-creds.parts';
import { CLOUD_B_LOG, cloudBStream, type CloudBRecordKey } from './records/cloud-b-record.events';
import { CloudBRecordProjection } from './records/cloud-b-record.projection';
import { CloudBRecordStore } from './records/cloud-b-record.store';
import { CloudBRecovery } from './recovery/cloud-b-recovery.service';

jest.setTimeout(60_000);

/** cloud-b on real Postgres and NATS, against the local IAM/STS: stored legacy roles, the recovery pass. */
describe('cloud-b (Postgres, NATS, local IAM/STS)', () => {
  let database: TestDatabase;
  let aws: AwsServer;
  let app: INestMicroservice;
  let transport: Transport;
  let client: Transport;
  let db: DbHandle;
  const barrier = new Barrier();
  barrier.load(createKeyring());
  let clockOffsetMs = 0;
  const mount: MountInfo = {
    path: 'cloud-b/',
    uuid: randomUUID(),
    accessor: 'cloud_b_test',
    type: 'cloud-b',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
  const headers = () =>
    encodeContext({
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      displayName: 'root',
      root: true,
    });
  const call = (contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    client.request(
      contract,
      { operation, mount, path, params, body, query: {}, headers: {} },
      { headers: headers() },
    ) as Promise<{ data: any; secret?: any; status?: number }>;

  beforeAll(async () => {
    aws = await startAwsServer();
    database = await createTestDatabase('cloud-b-int');
    await migrateSchema(database.db, CLOUD_CREDS_SCHEMA, cloudCredsMigrations);
    const prefix = uniqueSubjectPrefix('cloud-b-int');
    db = createPgDb(database.url, { max: 5 });
    transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: 'cloud-b' });
    client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: 'c' });
    const runtime = {
      db: db.db,
      schema: CLOUD_CREDS_SCHEMA,
      transport,
      cipher: barrier,
      clock: () => new Date(Date.now() + clockOffsetMs),
    };
    app = await createServiceApp(CloudCredsModule.register(runtime), transport, 'cloud-creds', {
      logger: false,
    });
    await call(cloudB.rootWrite, 'update', 'config/root', {
      access_key: aws.rootAccessKey,
      secret_key: aws.rootSecretKey,
      iam_endpoint: aws.url,
      sts_endpoint: aws.url,
      request_timeout: 2,
    });
  });
  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await client?.close();
    await transport?.close();
    await db?.close();
    await database?.drop();
    await aws?.stop();
  });

  it('reads a role stored by an earlier version that does not parse as invalid_data', async () => {
    const events = app.get<EventStore>(CLOUD_CREDS_EVENT_STORE);
    const projection = app.get(CloudBRecordProjection);
    const key: CloudBRecordKey = { mountUuid: mount.uuid, kind: 'role', name: 'old' };
    await events.append(
      cloudBStream(key),
      [{ type: 'CloudBRoleWritten', version: 1, data: { policy: 'arn:aws:iam::1:group/admins' } }],
      {
        expectedVersion: 0,
        project: (trx, appended) =>
          projection.apply(
            trx,
            appended.map((e) => ({ ...e, ...CLOUD_B_LOG.decode(e) })),
            key,
          ),
      },
    );
    const read = await call(cloudB.roleRead, 'read', 'roles/old', {}, { name: 'old' });
    expect(read.data).toMatchObject({ invalid_data: 'arn:aws:iam::1:group/admins', credential_types: [] });
    await expect(call(cloudB.creds, 'read', 'creds/old', {}, { name: 'old' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'did not find a valid credential_type for role "old"',
    });
    // a write replaces the unreadable data
    await call(
      cloudB.roleWrite,
      'update',
      'roles/old',
      { policy_arns: 'arn:aws:iam::aws:policy/A', credential_type: 'iam_user' },
      { name: 'old' },
    );
    const fixed = await call(cloudB.roleRead, 'read', 'roles/old', {}, { name: 'old' });
    expect(fixed.data.invalid_data).toBeUndefined();
    expect(fixed.data.credential_types).toEqual(['iam_user']);
  });

  it('removes a user whose creation was announced but never confirmed (a crashed request)', async () => {
    const store = app.get(CloudBRecordStore);
    const name = 'vault-root-old-1700000000-crashedABCDE';
    await store.append(mount.uuid, 'user', name, 0, [
      { type: 'CloudBUserIntended', data: { role: 'old', at: new Date(Date.now() - 60_000).toISOString() } },
    ]);
    // what the crashed request got done in IAM, with the real SDK
    const iam = new IAMClient({
      region: 'us-east-1',
      endpoint: aws.url,
      credentials: { accessKeyId: aws.rootAccessKey, secretAccessKey: aws.rootSecretKey },
    });
    await iam.send(new CreateUserCommand({ UserName: name }));
    await iam.send(new CreateAccessKeyCommand({ UserName: name }));
    iam.destroy();
    expect(aws.createdUsers().map((u) => u.name)).toEqual([name]);

    const recovery = app.get(CloudBRecovery);
    expect(await recovery.sweep()).toBe(1);
    expect(aws.createdUsers()).toEqual([]);
    expect(await store.get(mount.uuid, 'user', name)).toBeUndefined();
  });

  it('leaves a young intent to its request, then a failed revocation to the retries', async () => {
    const issued = await call(cloudB.creds, 'read', 'creds/old', {}, { name: 'old' });
    expect(issued.secret.internal.is_sts).toBe(false);
    const recovery = app.get(CloudBRecovery);
    expect(await recovery.sweep()).toBe(0);
    expect(aws.createdUsers()).toHaveLength(1);

    const leases = engineLeaseContracts('cloud-creds');
    const revoke = () =>
      client.request(leases.revoke, {
        lease_id: 'cloud-b/creds/old/x',
        mount,
        internal: issued.secret.internal,
        increment: 0,
        issue_time: new Date().toISOString(),
      });
    aws.failNext('DeleteUser', { status: 500, code: 'ServiceFailure', message: 'down for a bit' }, 3);
    await expect(revoke()).rejects.toMatchObject({ code: 'upstream_error' });
    expect(aws.createdUsers()).toHaveLength(1);
    // the record is "removing": the recovery pass also finishes it once past the grace
    clockOffsetMs = 60_000;
    expect(await recovery.sweep()).toBe(1);
    clockOffsetMs = 0;
    expect(aws.createdUsers()).toEqual([]);
    await revoke(); // idempotent
  });

  it('removes an issued user whose lease core-sys never got, once the registration cannot be coming', async () => {
    // core-sys's lease lookup, played here: it holds the leases of `held`
    const held = new Set<string>();
    const asked: string[][] = [];
    const sub = client.serve(coreLeasesHeld, 'core-sys', (req) => {
      asked.push(req.values);
      return Promise.resolve({ held: req.values.filter((v) => held.has(v)) });
    });
    const sweepAt = async (offsetMs: number) => {
      clockOffsetMs = offsetMs;
      try {
        await app.get(CloudBRecovery).sweep();
      } finally {
        clockOffsetMs = 0;
      }
    };
    try {
      const kept = await call(cloudB.creds, 'read', 'creds/old', {}, { name: 'old' });
      const orphan = await call(cloudB.creds, 'read', 'creds/old', {}, { name: 'old' });
      held.add(kept.secret.internal.username);
      await sweepAt(0); // within the grace: core-sys is not asked
      expect(asked).toEqual([]);
      expect(aws.createdUsers()).toHaveLength(2);

      await sweepAt(31_000);
      expect(asked.flat()).toEqual(
        expect.arrayContaining([kept.secret.internal.username, orphan.secret.internal.username]),
      );
      expect(aws.createdUsers().map((u) => u.name)).toEqual([kept.secret.internal.username]);
      // the kept user is its lease's from now on: never asked about again
      const before = asked.length;
      await sweepAt(120_000);
      expect(asked).toHaveLength(before);
      await client.request(engineLeaseContracts('cloud-creds').revoke, {
        lease_id: 'cloud-b/creds/old/y',
        mount,
        internal: kept.secret.internal,
        increment: 0,
        issue_time: new Date().toISOString(),
      });
      expect(aws.createdUsers()).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('answers cloud-creds.history.state for config/root, config/lease, roles and the LIST as the live reads did', async () => {
    const other: MountInfo = { ...mount, path: 'cloud-b-history/', uuid: randomUUID() };
    const on = (contract: Contract, operation: string, path: string, body = {}, params = {}) =>
      client.request(
        contract,
        { operation, mount: other, path, params, body, query: {}, headers: {} },
        { headers: headers() },
      ) as Promise<{ data: any }>;
    const read = (contract: Contract, operation: string, path: string, params = {}) =>
      on(contract, operation, path, {}, params).then(
        (res) => res.data,
        () => null,
      );
    const live = async () => ({
      root: await read(cloudB.rootRead, 'read', 'config/root'),
      lease: await read(cloudB.leaseRead, 'read', 'config/lease'),
      role: await read(cloudB.roleRead, 'read', 'roles/r', { name: 'r' }),
      roles: await read(cloudB.roleList, 'list', 'roles'),
    });
    const instant = async () => {
      const at = await historyInstant();
      return { at, ...(await live()) };
    };
    const past = (at: string, path: string) =>
      client.request(engineHistoryState('cloud-creds'), {
        mount_uuid: other.uuid,
        mount_type: 'cloud-b',
        mount_options: {},
        path,
        query: {},
        at,
        values: true,
      });
    const role = (name: string, body: object) =>
      on(cloudB.roleWrite, 'update', `roles/${name}`, body, { name });
    const root = (accessKey: string, secretKey: string) =>
      on(cloudB.rootWrite, 'update', 'config/root', {
        access_key: accessKey,
        secret_key: secretKey,
        region: 'eu-west-1',
      });

    const steps = [await instant()];
    await root('AKIDFIRST', 'history-secret-one');
    await on(cloudB.leaseWrite, 'update', 'config/lease', { lease: '1h', lease_max: '2h' });
    await role('r', { credential_type: 'iam_user', policy_arns: 'arn:aws:iam::aws:policy/A' });
    steps.push(await instant());
    await root('AKIDSECOND', 'history-secret-two');
    await on(cloudB.leaseWrite, 'update', 'config/lease', { lease: '30m', lease_max: '2h' });
    await role('r', { user_path: '/hist/' });
    await role('q', { credential_type: 'federation_token', policy_arns: 'arn:aws:iam::aws:policy/B' });
    steps.push(await instant());
    await on(cloudB.roleDelete, 'delete', 'roles/r', {}, { name: 'r' });
    steps.push(await instant());
    await on(cloudB.roleDelete, 'delete', 'roles/q', {}, { name: 'q' });
    steps.push(await instant());

    expect(steps[1]?.root).toMatchObject({ access_key: 'AKIDFIRST' });
    expect(steps[2]?.role).toMatchObject({ user_path: '/hist/' });
    expect(steps[2]?.roles).toEqual({ keys: ['q', 'r'] });
    expect(steps[3]?.roles).toEqual({ keys: ['q'] });
    for (const then of steps) {
      const answers: Record<string, unknown> = {};
      for (const [key, path] of [
        ['root', 'config/root'],
        ['lease', 'config/lease'],
        ['role', 'roles/r'],
        ['roles', 'roles'],
      ] as const) {
        const answer = await past(then.at, path);
        expect(JSON.stringify(answer)).not.toMatch(/history-secret/);
        answers[key] = answer.found ? answer.state : null;
      }
      const { at, ...expected } = then;
      expect({ at, ...answers }).toEqual({ at, ...expected });
    }
    for (const path of ['creds/r', 'config/rotate-root'])
      await expect(past(new Date().toISOString(), path)).rejects.toMatchObject({ code: 'invalid_request' });
    // a mount type with no history backend
    await expect(
      client.request(engineHistoryState('cloud-creds'), {
        mount_uuid: other.uuid,
        mount_type: 'cloud-z',
        mount_options: {},
        path: 'roles',
        query: {},
        values: false,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
