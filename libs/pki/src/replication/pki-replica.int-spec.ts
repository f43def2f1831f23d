import { randomUUID, X509Certificate } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  engineHistoryState,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type MountInfo,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
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
import { pkiMigrations } from '../migrations';
import { PKI_SCHEMA } from '../pki.di';
import { PkiModule } from '../pki.module';
import { pkiLocalStream } from './pki.replay';

jest.setTimeout(90_000);

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

/** One pki service with its own database, barrier and subjects (a cluster's pki). */
interface PkiCluster {
  database: TestDatabase;
  db: DbHandle;
  barrier: Barrier;
  app: INestMicroservice;
  transport: Transport;
  client: Transport;
  /** the cluster's own pki log */
  log: EventStore;
  call<C extends Contract>(
    contract: C,
    mount: MountInfo,
    params?: Record<string, string>,
    body?: Record<string, unknown>,
  ): Promise<ContractResponse<C>>;
  close(): Promise<void>;
}

async function startPki(name: string): Promise<PkiCluster> {
  const database = await createTestDatabase(name);
  await migrateSchema(database.db, PKI_SCHEMA, pkiMigrations);
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const prefix = uniqueSubjectPrefix(name);
  const db = createPgDb(database.url, { max: 5 });
  const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name });
  const runtime = { db: db.db, schema: PKI_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
  const app = await createServiceApp(PkiModule.register(runtime), transport, 'pki', { logger: false });
  const client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: `${name}-c` });
  const log = new EventStore({
    db: database.db,
    schema: PKI_SCHEMA,
    cipher: barrier,
    registry: new EventRegistry([]),
  });
  return {
    database,
    db,
    barrier,
    app,
    transport,
    client,
    log,
    call: (contract, mount, params = {}, body = {}) =>
      client.request(
        contract,
        { operation: 'update', mount, path: '', params, body, query: {}, headers: {} } as never,
        { headers: encodeContext({ ...caller, requestId: randomUUID() }) },
      ),
    async close() {
      await client.close();
      await app.close();
      await transport.close();
      await db.close();
      await database.drop();
    },
  };
}

const newMount = (): MountInfo => ({
  path: `pki-${randomUUID().slice(0, 8)}/`,
  uuid: randomUUID(),
  accessor: 'pki_test',
  type: 'pki',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
});

/** The serials a PEM CRL lists, as lowercase hex without colons (just the bytes we look for). */
const crlDer = (pem: unknown): Buffer =>
  Buffer.from(
    String(pem)
      .replace(/-----[A-Z0-9 ]+-----/g, '')
      .replace(/\s+/g, ''),
    'base64',
  );
const listsSerial = (pem: unknown, serial: string): boolean =>
  crlDer(pem).includes(Buffer.from(serial.replace(/:/g, ''), 'hex'));

/**
 * A primary pki service and two secondaries (DR, performance), each on its own database and
 * barrier: the primary's log rows go to a secondary as the replication service ships them (as
 * stored, payloads opened with the primary's keyring) through `pki.replication.apply`, and the
 * secondary's own pki service projects them into its read model (the rows land in `pki_replica`).
 */
describe('pki replica: the primary pki log replayed on DR and performance secondaries (NATS + Postgres)', () => {
  let primary: PkiCluster;
  let dr: PkiCluster;
  let perf: PkiCluster;
  const mount = newMount();
  const secondaries = (): Array<[PkiCluster, ReplicationMode]> => [
    [dr, 'dr'],
    [perf, 'performance'],
  ];

  beforeAll(async () => {
    primary = await startPki('pki_repl_primary');
    dr = await startPki('pki_repl_dr');
    perf = await startPki('pki_repl_perf');
    // the secondaries' replication service: opens their replica logs' rows with the primary's keyring
    for (const c of [dr, perf]) {
      c.transport.serve(replicaOpenContract, 'replication', (req) =>
        openReplicaRows(c.db.db, req, primary.barrier),
      );
    }
  });
  afterAll(async () => {
    for (const c of [primary, dr, perf]) await c?.close();
  });

  /** One round of the replication service: from the secondary's head to the primary's. */
  async function ship(to: PkiCluster, mode: ReplicationMode) {
    const head = await to.client.request(replicaApplyContract(PKI_SCHEMA), { op: 'head' });
    const rows = await primary.log.readRawFrom(head.lastWal, 1000);
    if (rows.length === 0) return head;
    // the primary's stream asks every replayed service what its rows need beyond the log
    const exported = await primary.client.request(replicaExportContract(PKI_SCHEMA), {
      events: rows.map((r) => ({
        wal: r.wal,
        type: r.type,
        schemaVersion: r.schemaVersion,
        data: openReplicaPayload(primary.barrier, PKI_SCHEMA, r),
      })),
    });
    expect(exported.attachments).toEqual([]);
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, PKI_SCHEMA, r));
    return to.client.request(replicaApplyContract(PKI_SCHEMA), {
      op: 'apply',
      mode,
      events,
      attachments: {},
    });
  }
  const shipAll = async () => {
    for (const [c, mode] of secondaries()) await ship(c, mode);
  };

  /** The primary's whole log as the promotion fold reads the replica log (opened rows). */
  async function foldEvents() {
    const rows = await primary.log.readRawFrom(0, 1000);
    return rows.map((r) => ({
      wal: r.wal,
      stream: r.stream,
      streamVersion: r.streamVersion,
      type: r.type,
      schemaVersion: r.schemaVersion,
      data: openReplicaPayload(primary.barrier, PKI_SCHEMA, r),
    }));
  }

  let caPem: string;
  let primaryLeaf: string;
  /** a certificate the performance secondary issued and revoked itself */
  let perfLeaf: string;
  /** instants of the first test: before anything, and after the CA, role and settings were written */
  const instants: string[] = [];

  /** pki.history.state of a path of `mount` on `c` at `at`, as core-sys asks it. */
  const historyOf = (c: PkiCluster, at: string, path: string, m: MountInfo = mount) =>
    c.client.request(engineHistoryState('pki'), {
      mount_uuid: m.uuid,
      mount_type: 'pki',
      mount_options: {},
      path,
      query: {},
      at,
      values: false,
    });
  const HISTORY_PATHS = ['roles/web', 'roles', 'cert/ca', 'ca_chain', 'config/urls', 'config/crl'];

  it('serves the primary CA, role and settings on both; its certificates on the DR secondary only', async () => {
    instants.push(await historyInstant());
    await primary.call(
      pki.rootGenerate,
      mount,
      { type: 'internal' },
      { common_name: 'Replicated Root', key_type: 'ec' },
    );
    await primary.call(
      pki.roleWrite,
      mount,
      { name: 'web' },
      { allow_any_name: true, key_type: 'ec', ttl: '1h' },
    );
    await primary.call(pki.urlsWrite, mount, {}, { issuing_certificates: ['http://ca.test/ca'] });
    await primary.call(pki.crlConfigWrite, mount, {}, { expiry: '48h' });
    const issued = await primary.call(pki.issue, mount, { name: 'web' }, { common_name: 'a.test' });
    primaryLeaf = issued.data?.serial_number ?? '';
    await primary.call(pki.revoke, mount, {}, { serial_number: primaryLeaf });
    caPem = String((await primary.call(pki.caPem, mount)).body);
    instants.push(await historyInstant());

    await shipAll();
    const head = await primary.log.head();
    for (const [c] of secondaries()) {
      expect(await c.client.request(replicaApplyContract(PKI_SCHEMA), { op: 'head' })).toEqual(head);
      expect((await c.call(pki.caPem, mount)).body).toBe(caPem);
      expect((await c.call(pki.roleRead, mount, { name: 'web' })).data).toEqual(
        (await primary.call(pki.roleRead, mount, { name: 'web' })).data,
      );
      expect((await c.call(pki.urlsRead, mount)).data).toEqual(
        (await primary.call(pki.urlsRead, mount)).data,
      );
      expect((await c.call(pki.crlConfigRead, mount)).data).toMatchObject({ expiry: '48h' });
      // the replayed rows went to the replica log, not the cluster's own
      expect((await c.log.head()).lastWal).toBe(0);
    }
    // DR: the primary's certificate store and CRL (it becomes the primary)
    expect((await dr.call(pki.certList, mount)).data?.keys).toEqual(
      (await primary.call(pki.certList, mount)).data?.keys,
    );
    expect(
      (await dr.call(pki.certRead, mount, { serial: primaryLeaf })).data?.revocation_time,
    ).toBeGreaterThan(0);
    expect(listsSerial((await dr.call(pki.crlPem, mount)).body, primaryLeaf)).toBe(true);
    // performance: certificates and revocations are the primary's own (Vault's LocalStorage)
    expect((await perf.call(pki.certList, mount)).data?.keys).toEqual([]);
    await expect(perf.call(pki.certRead, mount, { serial: primaryLeaf })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, primaryLeaf)).toBe(false);
  });

  it("answers the history of the primary's role, settings and CA on both secondaries as the primary does", async () => {
    await primary.call(
      pki.roleWrite,
      mount,
      { name: 'web' },
      { allow_any_name: true, key_type: 'ec', ttl: '3h' },
    );
    instants.push(await historyInstant());
    await shipAll();
    for (const at of instants) {
      for (const path of HISTORY_PATHS) {
        const expected = await historyOf(primary, at, path);
        for (const [c] of secondaries()) expect(await historyOf(c, at, path)).toEqual(expected);
      }
    }
    // the role then, not now: at the second instant its first version, at the third its update
    const [, second, third] = instants;
    expect((await historyOf(perf, second ?? '', 'roles/web')).state).toMatchObject({ ttl: 3600 });
    expect((await historyOf(perf, third ?? '', 'roles/web')).state).toMatchObject({ ttl: 10800 });
    expect((await historyOf(dr, instants[0] ?? '', 'roles/web')).found).toBe(false);
  });

  it('issues, revokes and rotates on the performance secondary locally, with the primary CA', async () => {
    const issued = await perf.call(pki.issue, mount, { name: 'web' }, { common_name: 'b.test' });
    const leaf = new X509Certificate(issued.data?.certificate ?? '');
    expect(leaf.verify(new X509Certificate(caPem).publicKey)).toBe(true);
    const serial = issued.data?.serial_number ?? '';
    perfLeaf = serial;
    expect((await perf.call(pki.certList, mount)).data?.keys).toEqual([serial]);
    await perf.call(pki.revoke, mount, {}, { serial_number: serial });
    const crl = (await perf.call(pki.crlPem, mount)).body;
    expect(listsSerial(crl, serial)).toBe(true);
    // its own log holds what it did itself: the certificate and its CRL number
    const own = await perf.log.readRawFrom(0, 100);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((r) => pkiLocalStream(r.stream))).toBe(true);
    // a CRL setting replayed afterwards takes effect at once (the built CRL is dropped)
    await primary.call(pki.crlConfigWrite, mount, {}, { disable: true });
    await ship(perf, 'performance');
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, serial)).toBe(false);
    await primary.call(pki.crlConfigWrite, mount, {}, { disable: false });
    await ship(perf, 'performance');
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, serial)).toBe(true);
  });

  it('replays a role deleted and a CA replaced on the primary; a redelivered batch applies once', async () => {
    await primary.call(pki.roleWrite, mount, { name: 'gone' }, { allow_any_name: true, key_type: 'ec' });
    await primary.call(pki.roleDelete, mount, { name: 'gone' });
    const other = newMount();
    await primary.call(
      pki.intermediateGenerate,
      other,
      { type: 'internal' },
      { common_name: 'Inter', key_type: 'ec' },
    );
    await shipAll();
    for (const [c] of secondaries()) {
      expect((await c.call(pki.roleList, mount)).data?.keys).toEqual(['web']);
      // a pending intermediate key, no CA yet
      expect((await c.call(pki.caPem, other)).status).toBe(204);
    }
    const csr = await primary.call(
      pki.intermediateGenerate,
      other,
      { type: 'internal' },
      { common_name: 'Inter', key_type: 'ec' },
    );
    const { data } = await primary.call(
      pki.rootSignIntermediate,
      mount,
      {},
      { csr: csr.data?.csr, common_name: 'Inter', ttl: '24h' },
    );
    await primary.call(pki.intermediateSetSigned, other, {}, { certificate: data?.certificate ?? '' });
    await shipAll();
    for (const [c] of secondaries()) {
      expect((await c.call(pki.caPem, other)).body).toBe(data?.certificate);
      expect((await c.call(pki.caChain, other)).body).toBe((await primary.call(pki.caChain, other)).body);
    }

    const head = await primary.log.head();
    const rows = await primary.log.readRawFrom(head.lastWal - 3, 10);
    for (const [c, mode] of secondaries()) {
      const again = await c.client.request(replicaApplyContract(PKI_SCHEMA), {
        op: 'apply',
        mode,
        events: rows.map((r) => openedReplicaEvent(primary.barrier, PKI_SCHEMA, r)),
        attachments: {},
      });
      expect(again).toEqual(head);
      expect((await c.call(pki.caPem, other)).body).toBe(data?.certificate);
    }
  });

  it("keeps the performance secondary's own certificates and CRL through a re-sync; the primary's rows come again", async () => {
    const own = await perf.log.head();
    const head = await perf.client.request(replicaApplyContract(PKI_SCHEMA), {
      op: 'wipe',
      mode: 'performance',
      scope: 'replicated',
    });
    expect(head.lastWal).toBe(0);
    expect(await perf.log.head()).toEqual(own);
    // the primary's CA and role went with its rows; the cluster's own certificate store stayed
    expect((await perf.call(pki.caPem, mount)).status).toBe(204);
    expect((await perf.call(pki.roleList, mount)).data?.keys).toEqual([]);
    expect((await perf.call(pki.certList, mount)).data?.keys).toEqual([perfLeaf]);
    expect(
      (await perf.call(pki.certRead, mount, { serial: perfLeaf })).data?.revocation_time,
    ).toBeGreaterThan(0);

    expect(await ship(perf, 'performance')).toEqual(await primary.log.head());
    expect((await perf.call(pki.caPem, mount)).body).toBe(caPem);
    expect((await perf.call(pki.roleList, mount)).data?.keys).toEqual(['web']);
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, perfLeaf)).toBe(true);
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, primaryLeaf)).toBe(false);
    // and it goes on issuing into its own log, at the versions it left
    const next = await perf.call(pki.issue, mount, { name: 'web' }, { common_name: 'd.test' });
    expect((await perf.call(pki.certList, mount)).data?.keys).toEqual(
      [perfLeaf, next.data?.serial_number].sort(),
    );
    await perf.call(pki.revoke, mount, {}, { serial_number: next.data?.serial_number });
    expect(listsSerial((await perf.call(pki.crlPem, mount)).body, next.data?.serial_number ?? '')).toBe(true);
  });

  it('folds what it projected into its own log once at promotion; writes to folded streams follow', async () => {
    const events = await foldEvents();
    const through = events.at(-1)?.wal ?? 0;
    for (const [c, mode] of secondaries()) {
      const fold = (batch: typeof events) =>
        c.client.request(replicaFoldContract(PKI_SCHEMA), { op: 'fold', mode, events: batch, through });
      const ownBefore = (await c.log.head()).lastWal;
      // two batches, the second sent twice (a retry after a lost answer)
      const half = Math.floor(events.length / 2);
      const first = await fold(events.slice(0, half));
      const second = await fold(events.slice(half));
      const expected = events.filter((e) => mode === 'dr' || !pkiLocalStream(e.stream)).length;
      expect(first.appended + second.appended).toBe(expected);
      expect(await fold(events.slice(half))).toEqual({ foldedThrough: through, appended: 0 });
      expect((await c.log.head()).lastWal).toBe(ownBefore + expected);
      expect(await c.client.request(replicaFoldContract(PKI_SCHEMA), { op: 'position' })).toEqual({
        foldedThrough: through,
        appended: 0,
      });
      // the rows' versions are the streams' versions in the own log: the next appends succeed
      await c.call(
        pki.roleWrite,
        mount,
        { name: 'web' },
        { allow_any_name: true, key_type: 'ec', ttl: '2h' },
      );
      expect((await c.call(pki.roleRead, mount, { name: 'web' })).data).toMatchObject({ ttl: 7200 });
      await c.call(pki.urlsWrite, mount, {}, { ocsp_servers: ['http://ocsp.test'] });
      const leaf = await c.call(pki.issue, mount, { name: 'web' }, { common_name: 'c.test' });
      expect(
        new X509Certificate(leaf.data?.certificate ?? '').verify(new X509Certificate(caPem).publicKey),
      ).toBe(true);
      await c.call(pki.revoke, mount, {}, { serial_number: leaf.data?.serial_number });
    }
    // history after the fold: the primary's events at their own times, then the cluster's own writes
    const now = await historyInstant();
    for (const [c] of secondaries()) {
      for (const at of instants) {
        for (const path of HISTORY_PATHS)
          expect(await historyOf(c, at, path)).toEqual(await historyOf(primary, at, path));
      }
      expect((await historyOf(c, now, 'roles/web')).state).toMatchObject({ ttl: 7200 });
      expect((await historyOf(c, now, 'config/urls')).state).toMatchObject({
        ocsp_servers: ['http://ocsp.test'],
      });
      expect((await historyOf(c, now, 'roles')).state).toEqual({ keys: ['web'] });
    }
    // DR: the primary's revoked certificate is in the own log now; a tidy of it appends after it
    expect(
      (await dr.call(pki.certRead, mount, { serial: primaryLeaf })).data?.revocation_time,
    ).toBeGreaterThan(0);
    await dr.call(pki.rootDelete, mount);
    expect((await dr.call(pki.caPem, mount)).status).toBe(204);
  });

  it('wipes its pki data and the replica log when enabled as a secondary anew', async () => {
    const head = await perf.client.request(replicaApplyContract(PKI_SCHEMA), { op: 'wipe' });
    expect(head.lastWal).toBe(0);
    expect((await perf.call(pki.caPem, mount)).status).toBe(204);
    expect((await perf.call(pki.roleList, mount)).data?.keys).toEqual([]);
    expect((await perf.log.head()).lastWal).toBe(0);
    await ship(perf, 'performance');
    expect((await perf.call(pki.caPem, mount)).body).toBe(caPem);
    const again = await migrateSchema(perf.database.db, PKI_SCHEMA, pkiMigrations);
    expect(again.filter((r) => r.status !== 'NotExecuted')).toEqual([]);
  });
});
