import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreEntityFacts,
  coreTokenAlive,
  coreTokenCreatedAt,
  encodeContext,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type EntityFacts,
  type MountInfo,
} from '@coffer/contracts';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import { createTestDatabase, natsUrl, uniqueSubjectPrefix, type TestDatabase } from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { oidcMigrations } from '../migrations';
import { OIDC_SCHEMA } from '../oidc.di';
import { OidcModule } from '../oidc.module';

/**
 * Integration harness of the oidc service: a fresh Postgres database, replicas as Nest
 * microservices over real NATS (each on its own subject prefix, so a test picks the replica),
 * and core-sys's identity and token contracts answered by the test (`entities`, `liveTokens`).
 */
export interface OidcHarness {
  database: TestDatabase;
  /** the service's barrier (its own keyring: a second harness is another cluster) */
  barrier: Barrier;
  clock: { now: Date };
  replicas: { app: INestMicroservice; client: Transport }[];
  /** entity facts core-sys would answer, by id */
  entities: Map<string, EntityFacts>;
  /** live token refs and their creation time (unix ms) */
  liveTokens: Map<string, number>;
  /** the identity/ mount of the root namespace */
  mount: MountInfo;
  call<C extends Contract>(
    contract: C,
    req: { params?: Record<string, string>; body?: object; query?: object; headers?: object },
    opts?: { replica?: number; caller?: Partial<CallerContext> },
  ): Promise<ContractResponse<C>>;
  addReplica(): Promise<void>;
  close(): Promise<void>;
}

export async function startOidcHarness(label: string, replicaCount = 1): Promise<OidcHarness> {
  const database = await createTestDatabase(label);
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const clock = { now: new Date() };
  const entities = new Map<string, EntityFacts>();
  const liveTokens = new Map<string, number>();
  const prefix = uniqueSubjectPrefix(label);
  const replicas: OidcHarness['replicas'] = [];
  const closers: (() => Promise<unknown>)[] = [];
  const addReplica = async (): Promise<void> => {
    const subjectPrefix = `${prefix}-r${replicas.length}`;
    const db: DbHandle = createPgDb(database.url, { max: 4 });
    const transport = await connectNatsTransport({ servers: natsUrl(), subjectPrefix, name: 'oidc' });
    const client = await connectNatsTransport({ servers: natsUrl(), subjectPrefix, name: 'client' });
    client.serve(coreEntityFacts, 'core-sys', ({ entityId }) =>
      Promise.resolve(entities.get(entityId) ?? null),
    );
    client.serve(coreTokenAlive, 'core-sys', ({ tokenRefs }) =>
      Promise.resolve({ alive: tokenRefs.filter((ref) => liveTokens.has(ref)) }),
    );
    client.serve(coreTokenCreatedAt, 'core-sys', ({ tokenRef }) =>
      Promise.resolve({ createdAt: liveTokens.get(tokenRef) ?? null }),
    );
    const runtime = { db: db.db, schema: OIDC_SCHEMA, transport, cipher: barrier, clock: () => clock.now };
    const module = OidcModule.register(runtime, {
      apiAddr: 'https://coffer.test',
      rotationCheckIntervalMs: 0,
    });
    const app = await createServiceApp(module, transport, 'oidc', { logger: false });
    closers.unshift(
      () => app.close(),
      () => client.close(),
      () => transport.close(),
      () => db.close(),
    );
    replicas.push({ app, client });
  };
  const close = async (): Promise<void> => {
    for (const closer of closers) await closer().catch(() => undefined);
    await database.drop();
  };
  try {
    await migrateSchema(database.db, OIDC_SCHEMA, oidcMigrations);
    for (let i = 0; i < replicaCount; i++) await addReplica();
  } catch (error) {
    await close();
    throw error;
  }
  const mount: MountInfo = {
    path: 'identity/',
    uuid: randomUUID(),
    accessor: 'identity_1',
    type: 'identity',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
  const caller: CallerContext = {
    requestId: 'req',
    namespace: '',
    clientAddress: '127.0.0.1',
    policies: ['root'],
    root: true,
    sudo: true,
  };
  return {
    database,
    barrier,
    clock,
    replicas,
    entities,
    liveTokens,
    mount,
    call: (contract, req, opts = {}) => {
      const replica = replicas[opts.replica ?? 0];
      if (!replica) throw new Error(`no replica ${opts.replica}`);
      const payload = {
        operation: 'update',
        mount,
        path: '',
        params: {},
        body: {},
        query: {},
        headers: {},
        ...req,
      };
      const headers = encodeContext({ ...caller, ...opts.caller, requestId: randomUUID() });
      return replica.client.request(contract, payload as never, { headers });
    },
    addReplica,
    close,
  };
}
