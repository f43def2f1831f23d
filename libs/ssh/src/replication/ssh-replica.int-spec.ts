import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { sql } from 'kysely';
import sshpk from 'sshpk';
import { Barrier, createKeyring } from '@coffer/barrier';
import { encodeContext, engineHistoryState, type Contract, type MountInfo } from '@coffer/contracts';
import {
  replicaApplyContract,
  replicaFoldContract,
  replicaLogSchemaOf,
  replicaOpenContract,
  type ReplicaFoldEvent,
  type ReplicationMode,
} from '@coffer/contracts/replication';
import { ssh } from '@coffer/contracts/ssh';
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
  uniqueSubjectPrefix,
  type TestDatabase,
  historyInstant,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { generateKeyPair } from '../ca/ca-keys';
import { sshMigrations } from '../migrations';
import { SSH_SCHEMA } from '../ssh.di';
import { SshModule } from '../ssh.module';

jest.setTimeout(60_000);

/** One cluster's ssh service: its own database, barrier keyring and subject prefix. */
interface Cluster {
  database: TestDatabase;
  barrier: Barrier;
  app: INestMicroservice;
  transport: Transport;
  client: Transport;
  db: DbHandle;
}

async function startCluster(label: string): Promise<Cluster> {
  const database = await createTestDatabase(label);
  await migrateSchema(database.db, SSH_SCHEMA, sshMigrations);
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const prefix = uniqueSubjectPrefix(label);
  const db = createPgDb(database.url, { max: 5 });
  const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: label });
  const client = await connectNatsTransport({
    servers: natsUrl(),
    subjectPrefix: prefix,
    name: `${label}-c`,
  });
  const runtime = { db: db.db, schema: SSH_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
  const app = await createServiceApp(SshModule.register(runtime), transport, 'ssh', { logger: false });
  return { database, barrier, app, transport, client, db };
}

async function stopCluster(c: Cluster | undefined): Promise<void> {
  if (!c) return;
  await c.app.close().catch(() => undefined);
  await c.client.close();
  await c.transport.close();
  await c.db.close();
  await c.database.drop();
}

/**
 * A primary ssh service and two secondaries (DR, performance), each with its own database and
 * keyring: the primary's log is shipped as the replication service ships it (rows as stored,
 * payloads opened with the primary's keyring), each secondary replays it into its replica log
 * and read model with its own projections, and the promotion fold copies it into the own log.
 */
describe('ssh replica: the primary log replayed on DR and performance secondaries (NATS + Postgres)', () => {
  let primary: Cluster;
  let dr: Cluster;
  let perf: Cluster;
  const mount: MountInfo = {
    path: 'ssh/',
    uuid: randomUUID(),
    accessor: 'ssh_repl',
    type: 'ssh',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
  const apply = replicaApplyContract(SSH_SCHEMA);
  const fold = replicaFoldContract(SSH_SCHEMA);
  const ca = generateKeyPair('ssh-ed25519', 0);
  const subject = generateKeyPair('ssh-ed25519', 0).publicKey;
  let primaryOtp = '';

  beforeAll(async () => {
    primary = await startCluster('ssh_repl_p');
    dr = await startCluster('ssh_repl_dr');
    perf = await startCluster('ssh_repl_perf');
    // the secondaries' replication service: opens their replica logs' rows with the primary's keyring
    for (const c of [dr, perf]) {
      c.transport.serve(replicaOpenContract, 'replication', (req) =>
        openReplicaRows(c.db.db, req, primary.barrier),
      );
    }
  });
  afterAll(async () => {
    for (const c of [primary, dr, perf]) await stopCluster(c);
  });

  const call = (c: Cluster, contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    c.client.request(
      contract,
      { operation, mount, path, params, body, query: {}, headers: {} },
      {
        headers: encodeContext({
          requestId: randomUUID(),
          namespace: '',
          clientAddress: '127.0.0.1',
          displayName: 'root',
          root: true,
        }),
      },
    ) as Promise<{ data: any; secret?: any }>;
  const readRole = (c: Cluster, name: string) => call(c, ssh.roleRead, 'read', `roles/${name}`, {}, { name });
  const signOn = async (c: Cluster, caPublicKey: string) => {
    const res = await call(
      c,
      ssh.sign,
      'update',
      'sign/ca',
      { public_key: subject, valid_principals: 'u' },
      {
        name: 'ca',
      },
    );
    return sshpk
      .parseCertificate(res.data.signed_key as string, 'openssh')
      .isSignedByKey(sshpk.parseKey(caPublicKey, 'ssh'));
  };
  const log = (c: Cluster, schema = SSH_SCHEMA) =>
    new EventStore({ db: c.database.db, schema, cipher: c.barrier, registry: new EventRegistry([]) });

  /** One round of the replication service: the primary's rows after the secondary's head. */
  async function ship(to: Cluster, mode: ReplicationMode) {
    const head = await to.client.request(apply, { op: 'head' });
    const rows = await log(primary).readRawFrom(head.lastWal, 1000);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, SSH_SCHEMA, r));
    return to.client.request(apply, { op: 'apply', mode, events, attachments: {} });
  }

  /** What the promotion sends: the replica log after the fold position, opened with the primary's keyring. */
  async function foldOn(c: Cluster, mode: ReplicationMode): Promise<number> {
    const { foldedThrough } = await c.client.request(fold, { op: 'position' });
    const rows = await log(c, replicaLogSchemaOf(SSH_SCHEMA)).readRawFrom(foldedThrough, 10_000);
    const events: ReplicaFoldEvent[] = rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      streamVersion: r.streamVersion,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(primary.barrier, SSH_SCHEMA, r),
    }));
    const through = events.at(-1)?.wal ?? foldedThrough;
    return (await c.client.request(fold, { op: 'fold', mode, events, through })).appended;
  }

  /** ssh.history.state of a path of the mount on `c` at `at`, as core-sys asks it. */
  const historyOf = (c: Cluster, at: string, path: string) =>
    c.client.request(engineHistoryState('ssh'), {
      mount_uuid: mount.uuid,
      mount_type: 'ssh',
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });
  const HISTORY_PATHS = ['config/ca', 'keys/admin', 'roles/ca', 'roles/otp', 'roles/hist', 'roles'];
  /** instants with a history: before anything, after the first test's writes, after each write of a role */
  const instants: string[] = [new Date(0).toISOString()];
  /** Each secondary answers the history of HISTORY_PATHS at every instant as the primary does. */
  const historyAsPrimary = async (secondaries: readonly Cluster[]) => {
    for (const at of instants) {
      for (const path of HISTORY_PATHS) {
        const expected = await historyOf(primary, at, path);
        for (const c of secondaries) expect(await historyOf(c, at, path)).toEqual(expected);
      }
    }
  };

  const ownStreams = async (c: Cluster, prefix: string) => {
    const { rows } = await sql<{ stream: string }>`
      select distinct stream from ssh.event_log where stream like ${`${prefix}%`}`.execute(c.database.db);
    return rows.map((r) => r.stream);
  };

  it('serves the primary CA, keys, roles and zero-address list on both secondaries; OTPs on DR only', async () => {
    await call(primary, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: ca.privateKey,
      public_key: ca.publicKey,
    });
    const admin = generateKeyPair('ssh-ed25519', 0);
    await call(primary, ssh.keyWrite, 'update', 'keys/admin', { key: admin.privateKey }, { name: 'admin' });
    await call(
      primary,
      ssh.roleWrite,
      'update',
      'roles/ca',
      { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' },
      { name: 'ca' },
    );
    await call(
      primary,
      ssh.roleWrite,
      'update',
      'roles/otp',
      { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' },
      { name: 'otp' },
    );
    await call(primary, ssh.zeroAddressWrite, 'update', 'config/zeroaddress', { roles: 'otp' });
    primaryOtp = (await call(primary, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.7' }, { name: 'otp' }))
      .data.key as string;

    const primaryHead = await log(primary).head();
    for (const [c, mode] of [
      [dr, 'dr'],
      [perf, 'performance'],
    ] as const) {
      expect(await ship(c, mode)).toEqual(primaryHead);
      for (const [contract, path] of [
        [ssh.caRead, 'config/ca'],
        [ssh.zeroAddressRead, 'config/zeroaddress'],
      ] as const)
        expect(await call(c, contract, 'read', path)).toEqual(await call(primary, contract, 'read', path));
      expect((await call(c, ssh.caRead, 'read', 'config/ca')).data.public_key).toBe(ca.publicKey);
      for (const name of ['ca', 'otp'])
        expect(await readRole(c, name)).toEqual(await readRole(primary, name));
      expect(await call(c, ssh.roleList, 'list', 'roles')).toEqual(
        await call(primary, ssh.roleList, 'list', 'roles'),
      );
      expect(await signOn(c, ca.publicKey)).toBe(true);
      // nothing of the primary's lands in the secondary's own log before a promotion
      expect(await ownStreams(c, 'ssh-')).toEqual([]);
    }
    // an OTP is the issuing cluster's: DR has it (and the salt hashing it), performance has neither
    const kinds = async (c: Cluster) =>
      (
        await sql<{ kind: string }>`select distinct kind from ssh.records order by kind`.execute(
          c.database.db,
        )
      ).rows.map((r) => r.kind);
    expect(await kinds(dr)).toEqual(['ca', 'key', 'role', 'salt', 'zeroaddress']);
    expect(await kinds(perf)).toEqual(['ca', 'key', 'role', 'zeroaddress']);
    // the private keys stay sealed: by the primary's barrier in the replica log, by this one's in the read model
    const dump = await sql<{ text: string }>`
      select string_agg(t, '|') as text from (
        select r::text as t from ssh.records r
        union all select e::text from ssh_replica.event_log e) x`.execute(dr.database.db);
    for (const line of [...ca.privateKey.split('\n'), ...admin.privateKey.split('\n')].filter(
      (l) => l.length > 40,
    ))
      expect(dump.rows[0]?.text).not.toContain(line);
    await expect(call(perf, ssh.verify, 'update', 'verify', { otp: primaryOtp })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'OTP not found',
    });
  });

  it("answers the history of the primary's CA, keys and roles on both secondaries as the primary does", async () => {
    instants.push(await historyInstant());
    const hist = (user: string) =>
      call(
        primary,
        ssh.roleWrite,
        'update',
        'roles/hist',
        { key_type: 'otp', default_user: user, cidr_list: '10.0.0.0/8' },
        { name: 'hist' },
      );
    await hist('ops');
    instants.push(await historyInstant());
    await hist('admin');
    instants.push(await historyInstant());
    await ship(dr, 'dr');
    await ship(perf, 'performance');
    await historyAsPrimary([dr, perf]);
    expect((await historyOf(perf, instants[1] ?? '', 'roles/hist')).found).toBe(false);
    expect((await historyOf(perf, instants[2] ?? '', 'roles/hist')).state).toMatchObject({
      default_user: 'ops',
    });
    expect((await historyOf(perf, instants[3] ?? '', 'roles/hist')).state).toMatchObject({
      default_user: 'admin',
    });
    expect((await historyOf(dr, instants[0] ?? '', 'roles/otp')).found).toBe(false);
  });

  it('applies a redelivered batch once, and signs with the primary next CA', async () => {
    const before = await log(primary).head();
    const rows = await log(primary).readRawFrom(before.lastWal - 3, 10);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, SSH_SCHEMA, r));
    expect(await dr.client.request(apply, { op: 'apply', mode: 'dr', events, attachments: {} })).toEqual(
      before,
    );

    const next = generateKeyPair('ec', 0);
    await call(primary, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: next.privateKey,
      public_key: next.publicKey,
    });
    for (const [c, mode] of [
      [dr, 'dr'],
      [perf, 'performance'],
    ] as const) {
      await ship(c, mode);
      expect(await signOn(c, next.publicKey)).toBe(true);
    }
  });

  it('keeps issuing and verifying its own OTPs on a performance secondary', async () => {
    const creds = await call(perf, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.8' }, { name: 'otp' });
    await expect(call(perf, ssh.verify, 'update', 'verify', { otp: creds.data.key })).resolves.toMatchObject({
      data: { username: 'ops', ip: '10.0.0.8', role_name: 'otp' },
    });
    // its own salt and OTP went to its own log, the primary's rows still stream in beside them
    const own = (await ownStreams(perf, 'ssh-')).sort();
    expect(own).toEqual([expect.stringMatching(`^ssh-otp/${mount.uuid}/`), `ssh-salt/${mount.uuid}/otp`]);
    await call(
      primary,
      ssh.roleWrite,
      'update',
      'roles/later',
      { key_type: 'otp', default_user: 'x', cidr_list: '10.1.0.0/16' },
      { name: 'later' },
    );
    expect(await ship(perf, 'performance')).toEqual(await log(primary).head());
    expect((await readRole(perf, 'later')).data).toMatchObject({ default_user: 'x' });
  });

  it('keeps its own OTP and salt through a re-sync: the OTP verifies once the primary rows are back', async () => {
    const creds = await call(perf, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.9' }, { name: 'otp' });
    const ownHead = await log(perf).head();
    const wiped = await perf.client.request(apply, { op: 'wipe', mode: 'performance', scope: 'replicated' });
    expect(wiped.lastWal).toBe(0);
    expect(await log(perf).head()).toEqual(ownHead);
    await expect(readRole(perf, 'otp')).rejects.toMatchObject({ code: 'not_found' });
    expect(await ship(perf, 'performance')).toEqual(await log(primary).head());
    expect((await readRole(perf, 'later')).data).toMatchObject({ default_user: 'x' });
    await expect(call(perf, ssh.verify, 'update', 'verify', { otp: creds.data.key })).resolves.toMatchObject({
      data: { username: 'ops', ip: '10.0.0.9', role_name: 'otp' },
    });
    await expect(call(perf, ssh.verify, 'update', 'verify', { otp: creds.data.key })).rejects.toMatchObject({
      message: 'OTP not found',
    });
  });

  it('folds what DR projected into its own log once; the promoted cluster writes and verifies the primary OTP', async () => {
    await ship(dr, 'dr');
    const replicated = await log(dr, replicaLogSchemaOf(SSH_SCHEMA)).readRawFrom(0, 10_000);
    expect(await foldOn(dr, 'dr')).toBe(replicated.length);
    expect(await foldOn(dr, 'dr')).toBe(0);
    expect((await ownStreams(dr, 'ssh-otp/')).length).toBe(1);

    // after the fold the own log's versions are the rows' (what the next append expects)
    await expect(call(dr, ssh.verify, 'update', 'verify', { otp: primaryOtp })).resolves.toMatchObject({
      data: { username: 'ops', ip: '10.0.0.7' },
    });
    await call(
      dr,
      ssh.roleWrite,
      'update',
      'roles/ca',
      { key_type: 'ca', allow_user_certificates: true, allowed_users: 'root' },
      { name: 'ca' },
    );
    expect((await readRole(dr, 'ca')).data).toMatchObject({ allowed_users: 'root' });
    await call(dr, ssh.zeroAddressDelete, 'delete', 'config/zeroaddress');
    const rotated = generateKeyPair('ssh-ed25519', 0);
    await call(dr, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: rotated.privateKey,
      public_key: rotated.publicKey,
    });
    const res = await call(
      dr,
      ssh.sign,
      'update',
      'sign/ca',
      { public_key: subject, valid_principals: 'root' },
      { name: 'ca' },
    );
    expect(
      sshpk
        .parseCertificate(res.data.signed_key as string, 'openssh')
        .isSignedByKey(sshpk.parseKey(rotated.publicKey, 'ssh')),
    ).toBe(true);
    // history after the fold: the primary's events at their own times, then the cluster's own writes
    await historyAsPrimary([dr]);
    const now = await historyInstant();
    expect((await historyOf(dr, now, 'roles/ca')).state).toMatchObject({ allowed_users: 'root' });
    expect((await historyOf(dr, now, 'config/ca')).state).toMatchObject({ public_key: rotated.publicKey });
  });

  it('folds only the replicated settings on a performance secondary, never the primary OTPs or salt', async () => {
    const appended = await foldOn(perf, 'performance');
    expect(appended).toBeGreaterThan(0);
    expect(await foldOn(perf, 'performance')).toBe(0);
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from ssh.event_log
       where stream like 'ssh-otp/%' or stream like 'ssh-salt/%'`.execute(perf.database.db);
    expect(Number(rows[0]?.n)).toBe(5); // its own: the salt, its two OTPs issued and consumed
    await call(
      perf,
      ssh.roleWrite,
      'update',
      'roles/later',
      { key_type: 'otp', default_user: 'y', cidr_list: '10.1.0.0/16' },
      { name: 'later' },
    );
    expect((await readRole(perf, 'later')).data).toMatchObject({ default_user: 'y' });
    // a CA of its own at the stream's next version: signed with it (and its parsed signer cached)
    const own = generateKeyPair('ssh-ed25519', 0);
    await call(perf, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: own.privateKey,
      public_key: own.publicKey,
    });
    expect(await signOn(perf, own.publicKey)).toBe(true);
  });

  it('wipes the replicated data and the replica log on secondary enable; no stale CA signer survives', async () => {
    const wiped = await perf.client.request(apply, { op: 'wipe', mode: 'performance' });
    expect(wiped.lastWal).toBe(0);
    await expect(readRole(perf, 'otp')).rejects.toMatchObject({ code: 'not_found' });
    await expect(call(perf, ssh.caRead, 'read', 'config/ca')).rejects.toMatchObject({
      code: 'invalid_request',
    });
    // the primary's CA at the version the secondary's own CA had: the cached signer must not answer
    const third = generateKeyPair('ssh-ed25519', 0);
    await call(primary, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: third.privateKey,
      public_key: third.publicKey,
    });
    expect(await ship(perf, 'performance')).toEqual(await log(primary).head());
    expect(await signOn(perf, third.publicKey)).toBe(true);
    expect(await readRole(perf, 'later')).toEqual(await readRole(primary, 'later'));
  });
});
