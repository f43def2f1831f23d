import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import sshpk from 'sshpk';
import { sql } from 'kysely';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  engineHistoryState,
  engineLeaseContracts,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { ssh } from '@coffer/contracts/ssh';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  uniqueSubjectPrefix,
  type TestDatabase,
  historyInstant,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { generateKeyPair } from './ca/ca-keys';
import { sshMigrations } from './migrations';
import { SSH_SCHEMA } from './ssh.di';
import { SshModule } from './ssh.module';

jest.setTimeout(60_000);

interface Replica {
  app: INestMicroservice;
  transport: Transport;
  client: Transport;
  db: DbHandle;
}

/** The ssh service on real Postgres and NATS: two replicas of one queue group on one database. */
describe('ssh service (Postgres, NATS, two replicas)', () => {
  let database: TestDatabase;
  const replicas: Replica[] = [];
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const mount: MountInfo = {
    path: 'ssh/',
    uuid: randomUUID(),
    accessor: 'ssh_test',
    type: 'ssh',
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

  const call = (i: number, contract: Contract, operation: string, path: string, body = {}, params = {}) =>
    replicas[i % replicas.length]!.client.request(
      contract,
      { operation, mount, path, params, body, query: {}, headers: {} },
      { headers: headers() },
    ) as Promise<{ data: any; secret?: any }>;

  beforeAll(async () => {
    database = await createTestDatabase('ssh-int');
    await migrateSchema(database.db, SSH_SCHEMA, sshMigrations);
    const prefix = uniqueSubjectPrefix('ssh-int');
    for (let i = 0; i < 2; i++) {
      const db = createPgDb(database.url, { max: 5 });
      const transport = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `ssh-${i}`,
      });
      const client = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `c-${i}`,
      });
      const runtime = { db: db.db, schema: SSH_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
      const app = await createServiceApp(SshModule.register(runtime), transport, 'ssh', { logger: false });
      replicas.push({ app, transport, client, db });
    }
    await call(
      0,
      ssh.roleWrite,
      'update',
      'roles/otp',
      { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' },
      { name: 'otp' },
    );
  });
  afterAll(async () => {
    for (const r of replicas) {
      await r.app.close().catch(() => undefined);
      await r.client.close();
      await r.transport.close();
      await r.db.close();
    }
    await database?.drop();
  });

  it('lets exactly one of many concurrent verifies of one OTP succeed, across replicas', async () => {
    for (let round = 0; round < 5; round++) {
      const creds = await call(round, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.7' }, { name: 'otp' });
      const otp: string = creds.data.key;
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => call(i, ssh.verify, 'update', 'verify', { otp })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected')
          expect(r.reason).toMatchObject({ code: 'invalid_request', message: 'OTP not found' });
    }
  });

  it('revokes an OTP lease idempotently', async () => {
    const creds = await call(0, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.8' }, { name: 'otp' });
    const revoke = engineLeaseContracts('ssh').revoke;
    const req = {
      lease_id: 'ssh/creds/otp/x',
      mount,
      internal: creds.secret.internal,
      issue_time: new Date().toISOString(),
    };
    await replicas[0]!.client.request(revoke, req, { headers: headers() });
    await replicas[1]!.client.request(revoke, req, { headers: headers() });
    await expect(call(1, ssh.verify, 'update', 'verify', { otp: creds.data.key })).rejects.toMatchObject({
      message: 'OTP not found',
    });
  });

  it('signs with the current CA on every replica after the CA is replaced', async () => {
    await call(
      0,
      ssh.roleWrite,
      'update',
      'roles/ca',
      { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' },
      { name: 'ca' },
    );
    const subject = generateKeyPair('ssh-ed25519', 0).publicKey;
    for (const type of ['ssh-ed25519', 'ec']) {
      const pair = generateKeyPair(type, 0);
      await call(0, ssh.caWrite, 'update', 'config/ca', {
        generate_signing_key: false,
        private_key: pair.privateKey,
        public_key: pair.publicKey,
      });
      for (const i of [0, 1, 2, 3]) {
        const res = await call(
          i,
          ssh.sign,
          'update',
          'sign/ca',
          { public_key: subject, valid_principals: 'u' },
          { name: 'ca' },
        );
        const cert = sshpk.parseCertificate(res.data.signed_key, 'openssh');
        expect(cert.isSignedByKey(sshpk.parseKey(pair.publicKey, 'ssh'))).toBe(true);
      }
    }
  });

  it('keeps CA keys, admin keys and OTPs out of storage in clear', async () => {
    const pair = generateKeyPair('ssh-ed25519', 0);
    const admin = generateKeyPair('rsa', 2048);
    await call(0, ssh.caWrite, 'update', 'config/ca', {
      generate_signing_key: false,
      private_key: pair.privateKey,
      public_key: pair.publicKey,
    });
    await call(0, ssh.keyWrite, 'update', 'keys/admin', { key: admin.privateKey }, { name: 'admin' });
    const creds = await call(0, ssh.creds, 'update', 'creds/otp', { ip: '10.0.0.9' }, { name: 'otp' });
    const dump = await sql<{ text: string }>`
      select string_agg(t::text, '|') as text from (
        select r::text as t from ssh.records r
        union all select o::text from ssh.otps o
        union all select e::text from ssh.event_log e) x`.execute(database.db);
    const text = dump.rows[0]?.text ?? '';
    const secretLines = (pem: string) => pem.split('\n').filter((l) => l.length > 40);
    for (const line of [
      ...secretLines(pair.privateKey),
      ...secretLines(admin.privateKey),
      creds.data.key as string,
    ]) {
      expect(text).not.toContain(line);
      expect(text).not.toContain(Buffer.from(line).toString('hex'));
    }
  });

  /** Calls a contract on replica 0 against `other`, as the gateway would. */
  const onMount =
    (other: MountInfo) =>
    (contract: Contract, operation: string, path: string, body = {}, params = {}) =>
      replicas[0]!.client.request(
        contract,
        { operation, mount: other, path, params, body, query: {}, headers: {} },
        { headers: headers() },
      ) as Promise<{ data: any }>;
  /** ssh.history.state of a path of `other` at `at`, asked of replica 1 as core-sys asks it. */
  const historyOf = (other: MountInfo) => (at: string, path: string) =>
    replicas[1]!.client.request(engineHistoryState('ssh'), {
      mount_uuid: other.uuid,
      mount_type: 'ssh',
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });

  it('answers ssh.history.state for roles/<name> and the roles LIST as the live reads did at each instant', async () => {
    const other: MountInfo = { ...mount, path: 'ssh-history/', uuid: randomUUID() };
    const on = onMount(other);
    const live = async () => ({
      role: await on(ssh.roleRead, 'read', 'roles/r', {}, { name: 'r' })
        .then((res) => res.data)
        .catch(() => null),
      list: await on(ssh.roleList, 'list', 'roles')
        .then((res) => res.data)
        .catch(() => null),
    });
    const instant = async () => {
      const at = await historyInstant();
      return { at, ...(await live()) };
    };
    const past = historyOf(other);
    const write = (name: string, body: object) =>
      on(ssh.roleWrite, 'update', `roles/${name}`, body, { name });
    const steps = [await instant()];
    await write('r', { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' });
    await write('b', { key_type: 'ca', allow_user_certificates: true });
    steps.push(await instant());
    await write('r', { key_type: 'ca', allow_user_certificates: true, default_user: 'root' });
    await on(ssh.roleDelete, 'delete', 'roles/b', {}, { name: 'b' });
    steps.push(await instant());
    await on(ssh.roleDelete, 'delete', 'roles/r', {}, { name: 'r' });
    steps.push(await instant());

    expect(steps[1]?.list?.keys).toEqual(['b', 'r']);
    expect(steps[1]?.role).not.toEqual(steps[2]?.role);
    for (const then of steps) {
      const role = await past(then.at, 'roles/r');
      expect(role.found ? role.state : null).toEqual(then.role);
      const list = await past(then.at, 'roles');
      expect(list.found ? list.state : null).toEqual(then.list);
    }
    await expect(past(new Date().toISOString(), 'keys/k')).resolves.toMatchObject({ found: false });
    await expect(past(new Date().toISOString(), 'sign/r')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('answers ssh.history.state for config/ca (public key only) and keys/<name> (existence only)', async () => {
    const other: MountInfo = { ...mount, path: 'ssh-history-ca/', uuid: randomUUID() };
    const on = onMount(other);
    const instant = async () => {
      const ca = await on(ssh.caRead, 'read', 'config/ca')
        .then((res) => res.data)
        .catch(() => null);
      const at = await historyInstant();
      return { at, ca };
    };
    const past = historyOf(other);
    const first = generateKeyPair('ssh-ed25519', 0);
    const admin = generateKeyPair('ssh-ed25519', 0);
    const none = await instant();
    await on(ssh.caWrite, 'update', 'config/ca', {
      private_key: first.privateKey,
      public_key: first.publicKey,
    });
    await on(ssh.keyWrite, 'update', 'keys/admin', { key: admin.privateKey }, { name: 'admin' });
    const written = await instant();
    await on(ssh.caDelete, 'delete', 'config/ca');
    await on(ssh.keyDelete, 'delete', 'keys/admin', {}, { name: 'admin' });
    const deleted = await instant();
    await on(ssh.caWrite, 'update', 'config/ca', { generate_signing_key: true });
    const generated = await instant();

    expect([none.ca, deleted.ca]).toEqual([null, null]);
    expect(written.ca?.public_key).toEqual(expect.any(String));
    expect(generated.ca?.public_key).not.toEqual(written.ca?.public_key);
    for (const then of [none, written, deleted, generated]) {
      const ca = await past(then.at, 'config/ca');
      expect(ca.found ? ca.state : null).toEqual(then.ca);
      expect(JSON.stringify(ca)).not.toContain('PRIVATE KEY');
    }
    const key = async (at: string) => past(at, 'keys/admin');
    await expect(key(none.at)).resolves.toMatchObject({ found: false, state: null });
    await expect(key(written.at)).resolves.toMatchObject({ found: true, state: { name: 'admin' } });
    await expect(key(deleted.at)).resolves.toMatchObject({ found: false, state: null });
    expect(JSON.stringify(await key(written.at))).not.toContain('PRIVATE KEY');
  });
});
