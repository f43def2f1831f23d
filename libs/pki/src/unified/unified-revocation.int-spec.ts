import { randomUUID, X509Certificate } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreMountTable,
  defineContract,
  encodeContext,
  engineRequestSchema,
  type Contract,
  type ContractResponse,
  type MountInfo,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { replicaApplyContract, replicationForward, replicationModes } from '@coffer/contracts/replication';
import {
  createPgDb,
  EventRegistry,
  EventStore,
  migrateSchema,
  openedReplicaEvent,
} from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  type TestDatabase,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { z } from 'zod';
import { pkiMigrations } from '../migrations';
import { PKI_SCHEMA } from '../pki.di';
import { PkiModule } from '../pki.module';

jest.setTimeout(90_000);

interface Cluster {
  barrier: Barrier;
  client: Transport;
  transport: Transport;
  log: EventStore;
  call<C extends Contract>(
    c: C,
    mount: MountInfo,
    params?: object,
    body?: object,
  ): Promise<ContractResponse<C>>;
  close(): Promise<void>;
}

async function startPki(name: string, beforeApp?: (t: Transport) => void): Promise<Cluster> {
  const database: TestDatabase = await createTestDatabase(name);
  await migrateSchema(database.db, PKI_SCHEMA, pkiMigrations);
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const prefix = uniqueSubjectPrefix(name);
  const db = createPgDb(database.url, { max: 5 });
  const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name });
  beforeApp?.(transport);
  const runtime = { db: db.db, schema: PKI_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
  const app: INestMicroservice = await createServiceApp(PkiModule.register(runtime), transport, 'pki', {
    logger: false,
  });
  const client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix: prefix, name: `${name}-c` });
  const log = new EventStore({
    db: database.db,
    schema: PKI_SCHEMA,
    cipher: barrier,
    registry: new EventRegistry([]),
  });
  const caller = encodeContext({
    requestId: 'r',
    namespace: '',
    clientAddress: '',
    policies: ['root'],
    root: true,
  });
  return {
    barrier,
    client,
    transport,
    log,
    call: (contract, mount, params = {}, body = {}) =>
      client.request(
        contract,
        { operation: 'update', mount, path: '', params, body, query: {}, headers: {} } as never,
        { headers: caller },
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

const mount: MountInfo = {
  path: 'pki/',
  uuid: randomUUID(),
  accessor: 'pki_test',
  type: 'pki',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
};

const crlBytes = (pem: unknown): Buffer =>
  Buffer.from(String(pem).replace(/-----[A-Z0-9 ]+-----|\s+/g, ''), 'base64');
const lists = (pem: unknown, serial: string): boolean =>
  crlBytes(pem).includes(Buffer.from(serial.replace(/:/g, ''), 'hex'));

/**
 * A primary pki service and a performance secondary's, the secondary's replication service (and
 * core-sys's mount table) played by the test: it says "performance secondary" and forwards pki's internal writes to the
 * primary's pki (what the cluster connection does), and the primary's log is shipped to it.
 */
describe('pki unified CRL and cross-cluster revocation (NATS + Postgres)', () => {
  let primary: Cluster;
  let secondary: Cluster;

  beforeAll(async () => {
    primary = await startPki('pki_unified_p');
    secondary = await startPki('pki_unified_s', (t) => {
      t.serve(replicationModes, 'replication', () =>
        Promise.resolve({
          dr: 'disabled' as const,
          performance: 'secondary' as const,
          performancePrimaryApiAddr: '',
        }),
      );
      // core-sys's mount table: a background pass finds the mount it forwards for there
      t.serve(coreMountTable, 'core-sys', () =>
        Promise.resolve({ mounts: [{ ...mount, table: 'secret' as const }], revision: 1 }),
      );
      t.serve(replicationForward, 'replication', async (fw) => {
        const contract = defineContract(fw.subject, engineRequestSchema, z.record(z.string(), z.unknown()));
        const answer = await primary.client.request(contract, fw.request, { headers: fw.context });
        return { answer, index: { source: 'pki', wal: (await primary.log.head()).lastWal } };
      });
    });
  });
  afterAll(async () => {
    for (const c of [secondary, primary]) await c?.close();
  });

  async function ship(): Promise<void> {
    const head = await secondary.client.request(replicaApplyContract(PKI_SCHEMA), { op: 'head' });
    const rows = await primary.log.readRawFrom(head.lastWal, 1000);
    if (rows.length === 0) return;
    const events = rows.map((r) => openedReplicaEvent(primary.barrier, PKI_SCHEMA, r));
    await secondary.client.request(replicaApplyContract(PKI_SCHEMA), {
      op: 'apply',
      mode: 'performance',
      events,
      attachments: {},
    });
  }

  it('refuses unified_crl_on_existing_paths without unified_crl, and unified_crl without auto_rebuild', async () => {
    await expect(
      primary.call(pki.crlConfigWrite, mount, {}, { unified_crl_on_existing_paths: true }),
    ).rejects.toMatchObject({
      message: 'unified_crl_on_existing_paths cannot be enabled if unified_crl is disabled',
    });
    await expect(primary.call(pki.crlConfigWrite, mount, {}, { unified_crl: true })).rejects.toMatchObject({
      message:
        'unified_crl=true requires auto_rebuild=true, as unified CRLs cannot be rebuilt on every revocation.',
    });
  });

  let secondaryLeaf = '';

  it("lists a secondary's revocation on both clusters' unified CRL, not on the primary's own", async () => {
    await primary.call(
      pki.rootGenerate,
      mount,
      { type: 'internal' },
      { common_name: 'Unified Root', key_type: 'ec' },
    );
    await primary.call(
      pki.roleWrite,
      mount,
      { name: 'web' },
      { allow_any_name: true, key_type: 'ec', ttl: '1h' },
    );
    await primary.call(
      pki.crlConfigWrite,
      mount,
      {},
      { auto_rebuild: true, unified_crl: true, cross_cluster_revocation: true },
    );
    expect((await primary.call(pki.crlConfigRead, mount)).data).toMatchObject({
      auto_rebuild: true,
      auto_rebuild_grace_period: '12h',
      unified_crl: true,
      unified_crl_on_existing_paths: false,
      cross_cluster_revocation: true,
    });
    await ship();
    const issued = await secondary.call(pki.issue, mount, { name: 'web' }, { common_name: 's.test' });
    secondaryLeaf = issued.data?.serial_number ?? '';
    await secondary.call(pki.revoke, mount, {}, { serial_number: secondaryLeaf });

    // forwarded to the primary as it revoked: in the primary's log, not the secondary's own
    expect(lists((await primary.call(pki.unifiedCrlPem, mount)).body, secondaryLeaf)).toBe(true);
    expect(lists((await primary.call(pki.crlPem, mount)).body, secondaryLeaf)).toBe(false);
    await ship();
    expect(lists((await secondary.call(pki.unifiedCrlPem, mount)).body, secondaryLeaf)).toBe(true);
    // a revoke of it on the primary answers the unified entry's time
    const again = await primary.call(pki.revoke, mount, {}, { serial_number: secondaryLeaf });
    expect(again.data?.revocation_time).toBeGreaterThan(0);
  });

  it('revokes on the issuing secondary a serial whose revocation the primary queued', async () => {
    const issued = await secondary.call(pki.issue, mount, { name: 'web' }, { common_name: 'x.test' });
    const serial = issued.data?.serial_number ?? '';
    const pending = await primary.call(pki.revoke, mount, {}, { serial_number: serial });
    expect(pending.data).toEqual({ state: 'pending' });
    expect(pending.warnings?.[0]).toMatch(/^Revocation request was not found on this present node/);
    await ship(); // the request reaches the secondary, whose pass revokes it and forwards the entry
    await waitFor(async () => (await secondary.call(pki.certRead, mount, { serial })).data?.revocation_time, {
      timeoutMs: 20_000,
    });
    await waitFor(async () => lists((await primary.call(pki.unifiedCrlPem, mount)).body, serial), {
      timeoutMs: 20_000,
    });
    // the CA's own serial is refused there too, not queued
    const caHex = new X509Certificate(String((await primary.call(pki.caPem, mount)).body)).serialNumber;
    const caSerial = (caHex.toLowerCase().match(/../g) ?? []).join(':');
    await expect(secondary.call(pki.revoke, mount, {}, { serial_number: caSerial })).rejects.toMatchObject({
      message: 'adding CA to CRL is not allowed',
    });
    // a serial nobody issued without cross_cluster_revocation: not found, as before
    await primary.call(pki.crlConfigWrite, mount, {}, { cross_cluster_revocation: false });
    await expect(primary.call(pki.revoke, mount, {}, { serial_number: '01:02:03' })).rejects.toMatchObject({
      message: 'certificate with serial 01:02:03 not found.',
    });
  });

  it('serves the unified CRL on crl with unified_crl_on_existing_paths', async () => {
    await primary.call(pki.crlConfigWrite, mount, {}, { unified_crl_on_existing_paths: true });
    expect(lists((await primary.call(pki.crlPem, mount)).body, secondaryLeaf)).toBe(true);
    await primary.call(
      pki.crlConfigWrite,
      mount,
      {},
      { unified_crl: false, unified_crl_on_existing_paths: false },
    );
    expect(lists((await primary.call(pki.crlPem, mount)).body, secondaryLeaf)).toBe(false);
    expect((await primary.call(pki.unifiedCrlPem, mount)).status).toBe(204);
  });
});
