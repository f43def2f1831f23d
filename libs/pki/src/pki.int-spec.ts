import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  engineHistoryState,
  engineLeaseContracts,
  mountDisabled,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type MountInfo,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  historyInstant,
  type TestDatabase,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { pkiMigrations } from './migrations';
import { PKI_SCHEMA } from './pki.di';
import { PkiModule } from './pki.module';

jest.setTimeout(60_000);

/**
 * The pki service on real Postgres and NATS: two replicas in one queue group on one database,
 * called with EngineRequests as the gateway sends them.
 */
describe('pki service (Postgres + NATS, two replicas)', () => {
  let database: TestDatabase;
  const replicas: { app: INestMicroservice; transport: Transport; db: DbHandle }[] = [];
  let client: Transport;
  const barrier = new Barrier();
  barrier.load(createKeyring());

  beforeAll(async () => {
    database = await createTestDatabase('pki');
    await migrateSchema(database.db, PKI_SCHEMA, pkiMigrations);
    const prefix = uniqueSubjectPrefix('pki');
    for (let i = 0; i < 2; i++) {
      const db = createPgDb(database.url, { max: 5 });
      const transport = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `pki-${i}`,
      });
      const runtime = { db: db.db, schema: PKI_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
      const app = await createServiceApp(PkiModule.register(runtime), transport, 'pki', { logger: false });
      replicas.push({ app, transport, db });
    }
    client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: 'pki-client' });
  });
  afterAll(async () => {
    await client?.close();
    for (const r of replicas) {
      await r.app.close();
      await r.transport.close();
      await r.db.close();
    }
    await database?.drop();
  });

  const caller: CallerContext = {
    requestId: 'req',
    namespace: '',
    clientAddress: '127.0.0.1',
    accessor: 'accessor-root',
    tokenRef: 'token-ref-root',
    policies: ['root'],
    root: true,
    sudo: true,
  };
  const newMount = (): MountInfo => ({
    path: `pki-${randomUUID().slice(0, 8)}/`,
    uuid: randomUUID(),
    accessor: 'pki_test',
    type: 'pki',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  });
  const call = <C extends Contract>(
    contract: C,
    mount: MountInfo,
    params: Record<string, string>,
    body: Record<string, unknown> = {},
  ): Promise<ContractResponse<C>> =>
    client.request(
      contract,
      { operation: 'update', mount, path: '', params, body, query: {}, headers: {} } as never,
      { headers: encodeContext({ ...caller, requestId: randomUUID() }) },
    );

  /** Whether the mount's current CRL (as a replica answers it) carries the serial's bytes. */
  const crlLists = async (mount: MountInfo, serial: string): Promise<boolean> => {
    const crl = await call(pki.crlPem, mount, {});
    const der = Buffer.from(
      String(crl.body)
        .replace(/-----[A-Z0-9 ]+-----/g, '')
        .replace(/\s+/g, ''),
      'base64',
    );
    return der.includes(Buffer.from(serial.replace(/:/g, ''), 'hex'));
  };

  it('creates one CA when two replicas generate a root at once; the other gets the warning', async () => {
    const mount = newMount();
    const body = { common_name: 'race root', key_type: 'ec' };
    const results = await Promise.all([
      call(pki.rootGenerate, mount, { type: 'internal' }, body),
      call(pki.rootGenerate, mount, { type: 'internal' }, body),
    ]);
    const made = results.filter((r) => r.data !== null);
    expect(made).toHaveLength(1);
    expect(results.find((r) => r.data === null)?.warnings[0]).toMatch(
      /^Refusing to generate a root certificate/,
    );
    const pem = await call(pki.caPem, mount, {});
    expect(pem.body).toBe(made[0]?.data?.certificate);
  });

  it('issues and revokes through either replica; every CRL lists the revocation', async () => {
    const mount = newMount();
    await call(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'root', key_type: 'ec' });
    await call(pki.roleWrite, mount, { name: 'r' }, { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    const issued = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(pki.issue, mount, { name: 'r' }, { common_name: `h${i}.test` }),
      ),
    );
    const serials = issued.map((r) => r.data?.serial_number ?? '');
    const listed = await call(pki.certList, mount, {});
    expect(listed.data?.keys).toEqual(expect.arrayContaining(serials));
    await call(pki.revoke, mount, {}, { serial_number: serials[0] });
    for (let i = 0; i < 6; i++) expect(await crlLists(mount, serials[0] ?? '')).toBe(true);
  });

  it("revokes a generated root with its lease, at least once, onto the root's own CRL", async () => {
    const mount = newMount();
    const gen = await call(
      pki.rootGenerate,
      mount,
      { type: 'internal' },
      { common_name: 'r', key_type: 'ec' },
    );
    expect(gen.secret).toMatchObject({
      renewable: false,
      internal: { serial_number: gen.data?.serial_number },
    });
    const revoke = engineLeaseContracts('pki').revoke;
    const req = {
      lease_id: `${mount.path}root/generate/internal/x`,
      mount,
      internal: gen.secret?.internal ?? {},
      issue_time: new Date().toISOString(),
    };
    const headers = { headers: encodeContext({ ...caller, requestId: randomUUID() }) };
    await Promise.all([client.request(revoke, req, headers), client.request(revoke, req, headers)]);
    await client.request(revoke, req, headers);
    const serial = gen.data?.serial_number ?? '';
    const cert = await call(pki.certRead, mount, { serial });
    expect(cert.data?.revocation_time).toBeGreaterThan(0);
    expect(await crlLists(mount, serial)).toBe(true);
  });

  it('keeps the CA key and issued certificates only as ciphertext in Postgres', async () => {
    const mount = newMount();
    const res = await call(
      pki.rootGenerate,
      mount,
      { type: 'exported' },
      { common_name: 'secret root', key_type: 'ec' },
    );
    const key = res.data?.private_key ?? '';
    const keyBody = key.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const keyDer = Buffer.from(keyBody, 'base64');
    const needles = [keyBody.slice(20, 60), 'secret root', keyDer.subarray(10, 40).toString('hex')];
    const docs = (await database.db
      .withSchema(PKI_SCHEMA)
      .selectFrom('documents')
      .select('sealed')
      .execute()) as {
      sealed: Buffer;
    }[];
    const events = (await database.db
      .withSchema(PKI_SCHEMA)
      .selectFrom('event_log')
      .select('payload')
      .execute()) as {
      payload: Buffer;
    }[];
    expect(docs.length).toBeGreaterThan(0);
    for (const blob of [...docs.map((r) => r.sealed), ...events.map((e) => e.payload)]) {
      for (const needle of needles) {
        expect(blob.includes(Buffer.from(needle))).toBe(false);
        expect(blob.toString('hex').includes(keyDer.subarray(10, 40).toString('hex'))).toBe(false);
      }
    }
  });

  it('erases a disabled mount from the read model (CA, roles, certificates)', async () => {
    const mount = newMount();
    await call(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'gone', key_type: 'ec' });
    await call(pki.roleWrite, mount, { name: 'r' }, { allow_any_name: true, key_type: 'ec' });
    await call(pki.issue, mount, { name: 'r' }, { common_name: 'x.test', ttl: '1h' });
    const rows = async () => {
      const docs = await database.db
        .withSchema(PKI_SCHEMA)
        .selectFrom('documents')
        .select('kind')
        .where('mount_uuid', '=', mount.uuid)
        .execute();
      const certs = await database.db
        .withSchema(PKI_SCHEMA)
        .selectFrom('certificates')
        .select('serial')
        .where('mount_uuid', '=', mount.uuid)
        .execute();
      return docs.length + certs.length;
    };
    expect(await rows()).toBeGreaterThan(3);
    await client.publish(mountDisabled, { uuid: mount.uuid, type: 'pki', path: mount.path });
    await waitFor(async () => (await rows()) === 0, { timeoutMs: 10_000, message: 'mount purged' });
    expect((await call(pki.caPem, mount, {})).status).toBe(204);
  });

  /** pki.history.state of a path of `mount` at `at`, as core-sys asks it. */
  const historyOf = (mount: MountInfo) => (at: string, path: string) =>
    client.request(engineHistoryState('pki'), {
      mount_uuid: mount.uuid,
      mount_type: 'pki',
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });

  it('answers pki.history.state for roles/<name> and the roles LIST as the live reads did at each instant', async () => {
    const mount = newMount();
    const instant = historyInstant;
    const history = historyOf(mount);
    const past = (at: string, path = 'roles/r') => history(at, path);
    const list = async () => (await call(pki.roleList, mount, {})).data;
    const before = { at: await instant(), list: await list() };
    await call(pki.roleWrite, mount, { name: 'r' }, { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    await call(pki.roleWrite, mount, { name: 'a' }, { allow_any_name: true });
    const first = {
      at: await instant(),
      live: (await call(pki.roleRead, mount, { name: 'r' })).data,
      list: await list(),
    };
    await call(pki.roleWrite, mount, { name: 'r' }, { allowed_domains: ['example.com'], key_type: 'rsa' });
    await call(pki.roleDelete, mount, { name: 'a' });
    const second = {
      at: await instant(),
      live: (await call(pki.roleRead, mount, { name: 'r' })).data,
      list: await list(),
    };
    await call(pki.roleDelete, mount, { name: 'r' });
    const deleted = { at: await instant(), list: await list() };

    await expect(past(before.at)).resolves.toMatchObject({ found: false, wal: 0 });
    for (const then of [first, second]) {
      const answer = await past(then.at);
      expect(answer).toMatchObject({ found: true, wal: expect.any(Number) });
      expect(answer.state).toEqual(then.live);
    }
    expect(first.live).not.toEqual(second.live);
    await expect(past(deleted.at)).resolves.toMatchObject({ found: false, state: null });
    // the LIST at each instant, as the live LIST answered then
    expect(first.list).toEqual({ keys: ['a', 'r'] });
    for (const then of [before, first, second, deleted]) {
      await expect(past(then.at, 'roles')).resolves.toMatchObject({ found: true, state: then.list });
    }
    await expect(past(deleted.at, 'issuers')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('answers pki.history.state for config/urls and config/crl as the live reads did at each instant', async () => {
    const mount = newMount();
    const live = async () => ({
      urls: (await call(pki.urlsRead, mount, {})).data,
      crl: (await call(pki.crlConfigRead, mount, {})).data,
    });
    const instant = async () => ({ at: await historyInstant(), ...(await live()) });
    const past = historyOf(mount);
    const steps = [await instant()];
    await call(pki.urlsWrite, mount, {}, { issuing_certificates: ['https://ca.example/ca'] });
    await call(pki.crlConfigWrite, mount, {}, { expiry: '24h' });
    steps.push(await instant());
    await call(pki.urlsWrite, mount, {}, { ocsp_servers: ['https://ocsp.example'] });
    await call(pki.crlConfigWrite, mount, {}, { disable: true });
    steps.push(await instant());

    expect(steps[0]).not.toMatchObject({ urls: steps[1]?.urls });
    expect(steps[1]?.crl).not.toEqual(steps[2]?.crl);
    for (const then of steps) {
      const urls = await past(then.at, 'config/urls');
      const crl = await past(then.at, 'config/crl');
      expect([urls.found, urls.state, crl.found, crl.state]).toEqual([true, then.urls, true, then.crl]);
    }
  });
  it('answers pki.history.state for the CA certificate reads as the live reads did, never its key', async () => {
    const mount = newMount();
    const past = historyOf(mount);
    const live = async () => {
      const pem = await call(pki.caPem, mount, {});
      const ca = await call(pki.certRead, mount, { serial: 'ca' }).catch(() => undefined);
      const chain = await call(pki.certRead, mount, { serial: 'ca_chain' }).catch(() => undefined);
      return { at: await historyInstant(), pem, ca: ca?.data, chain: chain?.data };
    };
    const none = await live();
    await call(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'first', key_type: 'ec' });
    const first = await live();
    await call(pki.rootDelete, mount, {});
    const deleted = await live();
    await call(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'second', key_type: 'ec' });
    const second = await live();

    for (const then of [none, deleted]) {
      expect([then.pem.status, then.ca]).toEqual([204, undefined]);
      for (const path of ['cert/ca', 'cert/ca_chain', 'ca/pem', 'ca_chain']) {
        await expect(past(then.at, path)).resolves.toMatchObject({ found: false, state: null });
      }
    }
    expect(first.ca?.certificate).not.toEqual(second.ca?.certificate);
    for (const then of [first, second]) {
      const ca = await past(then.at, 'cert/ca');
      expect([ca.found, ca.state]).toEqual([true, then.ca]);
      expect((await past(then.at, 'cert/ca_chain')).state).toEqual(then.chain);
      expect((await past(then.at, 'ca/pem')).state).toEqual({ certificate: then.pem.body });
      for (const path of ['cert/ca', 'cert/ca_chain', 'ca/pem', 'ca_chain']) {
        expect(JSON.stringify(await past(then.at, path))).not.toContain('PRIVATE KEY');
      }
    }
  });
});
