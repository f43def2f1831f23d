import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type MountInfo,
} from '@coffer/contracts';
import { pki } from '@coffer/contracts/pki';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import { createTestDatabase, natsUrl, uniqueSubjectPrefix, type TestDatabase } from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { pkiMigrations } from '../migrations';
import { PKI_SCHEMA } from '../pki.di';
import { PkiModule } from '../pki.module';
import { DocumentCache } from './document-cache';

jest.setTimeout(60_000);

/** An EC P-256 CSR made by openssl (the CN is not used: the roles take the request's). */
function opensslCsr(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pki-cache-'));
  try {
    const out = join(dir, 'client.csr');
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
        '-keyout',
        join(dir, 'client.key'),
        '-subj',
        '/CN=csr.test',
        '-out',
        out,
      ]),
      { stdio: 'pipe' },
    );
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Two pki service instances on one database, each reachable on its own subjects: the opened
 * documents each keeps in memory (DocumentCache) never outlive a change made on the other. Every
 * step signs right after the other instance's acknowledged change, with both caches warm.
 */
describe('pki document cache across instances (one database)', () => {
  let database: TestDatabase;
  const instances: { app: INestMicroservice; transport: Transport; db: DbHandle; client: Transport }[] = [];
  const barrier = new Barrier();
  barrier.load(createKeyring());
  let csr: string;

  beforeAll(async () => {
    csr = opensslCsr();
    database = await createTestDatabase('pki_cache');
    await migrateSchema(database.db, PKI_SCHEMA, pkiMigrations);
    for (let i = 0; i < 2; i++) {
      const prefix = uniqueSubjectPrefix(`pkicache${i}`);
      const db = createPgDb(database.url, { max: 5 });
      const transport = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `pki-${i}`,
      });
      const runtime = { db: db.db, schema: PKI_SCHEMA, transport, cipher: barrier, clock: () => new Date() };
      const app = await createServiceApp(PkiModule.register(runtime), transport, 'pki', { logger: false });
      const client = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `client-${i}`,
      });
      instances.push({ app, transport, db, client });
    }
  });
  afterAll(async () => {
    for (const r of instances) {
      await r.client.close();
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
  const on =
    (i: 0 | 1) =>
    <C extends Contract>(
      contract: C,
      mount: MountInfo,
      params: Record<string, string>,
      body: Record<string, unknown> = {},
    ): Promise<ContractResponse<C>> => {
      const client = instances[i]?.client;
      if (!client) throw new Error('instance not started');
      return client.request(
        contract,
        { operation: 'update', mount, path: '', params, body, query: {}, headers: {} } as never,
        { headers: encodeContext({ ...caller, requestId: randomUUID() }) },
      );
    };
  const a = on(0);
  const b = on(1);
  const cacheOf = (i: 0 | 1) => instances[i]?.app.get(DocumentCache);
  const role = (domain: string) => ({
    allowed_domains: [domain],
    allow_subdomains: true,
    key_type: 'any',
    use_csr_common_name: false,
    use_csr_sans: false,
    max_ttl: '2h',
  });
  const sign = (call: typeof a, mount: MountInfo, host: string) =>
    call(pki.sign, mount, { name: 'web' }, { csr, common_name: host, ttl: '1h' });
  const refusedFor = (host: string) => ({
    code: 'invalid_request',
    message: expect.stringContaining(host) as unknown,
  });

  it('a role written on one instance is what the next sign on the other applies', async () => {
    const mount = newMount();
    await a(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'cache root', key_type: 'ec' });
    await a(pki.roleWrite, mount, { name: 'web' }, role('d0.test'));
    // both caches warm: the role, the issuer and the URLs are held by each instance
    expect((await sign(a, mount, 'h.d0.test')).data?.certificate).toMatch(/BEGIN CERTIFICATE/);
    expect((await sign(b, mount, 'h.d0.test')).data?.certificate).toMatch(/BEGIN CERTIFICATE/);
    expect(cacheOf(0)?.size).toBeGreaterThanOrEqual(3);
    expect(cacheOf(1)?.size).toBeGreaterThanOrEqual(3);
    for (let i = 1; i <= 8; i++) {
      const [writer, signer] = i % 2 === 1 ? [a, b] : [b, a];
      await writer(pki.roleWrite, mount, { name: 'web' }, role(`d${i}.test`));
      await expect(sign(signer, mount, `h.d${i - 1}.test`)).rejects.toMatchObject(
        refusedFor(`h.d${i - 1}.test`),
      );
      expect((await sign(signer, mount, `h.d${i}.test`)).data?.serial_number).toBeTruthy();
      // and the writer's own next sign
      await expect(sign(writer, mount, `h.d${i - 1}.test`)).rejects.toMatchObject(
        refusedFor(`h.d${i - 1}.test`),
      );
    }
  });

  it('a deleted role and a replaced CA are seen by the next request on the other instance', async () => {
    const mount = newMount();
    const first = await a(
      pki.rootGenerate,
      mount,
      { type: 'internal' },
      { common_name: 'first', key_type: 'ec' },
    );
    await a(pki.roleWrite, mount, { name: 'web' }, role('x.test'));
    expect((await sign(b, mount, 'h.x.test')).data?.issuing_ca).toBe(first.data?.certificate);
    await a(pki.roleDelete, mount, { name: 'web' });
    await expect(sign(b, mount, 'h.x.test')).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'unknown role: web',
    });
    await b(pki.roleWrite, mount, { name: 'web' }, role('x.test'));
    expect((await sign(a, mount, 'h.x.test')).data?.issuing_ca).toBe(first.data?.certificate);
    await b(pki.rootDelete, mount, {});
    await expect(sign(a, mount, 'h.x.test')).rejects.toMatchObject({ code: 'invalid_request' });
    const second = await b(
      pki.rootGenerate,
      mount,
      { type: 'internal' },
      { common_name: 'second', key_type: 'ec' },
    );
    expect(second.data?.certificate).not.toBe(first.data?.certificate);
    expect((await sign(a, mount, 'h.x.test')).data?.issuing_ca).toBe(second.data?.certificate);
  });

  it('invalidateAll empties the cache; the next request reads the documents again', async () => {
    const mount = newMount();
    await b(pki.rootGenerate, mount, { type: 'internal' }, { common_name: 'root', key_type: 'ec' });
    await b(pki.roleWrite, mount, { name: 'web' }, role('y.test'));
    await sign(a, mount, 'h.y.test');
    const cache = cacheOf(0);
    expect(cache?.size).toBeGreaterThan(0);
    cache?.invalidateAll();
    expect(cache?.size).toBe(0);
    expect((await sign(a, mount, 'h.y.test')).data?.serial_number).toBeTruthy();
    expect(cache?.size).toBeGreaterThan(0);
  });
});
