import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  encodeContext,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type EngineRequest,
  type MountInfo,
  type Operation,
} from '@coffer/contracts';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import { createTestDatabase, natsUrl, uniqueSubjectPrefix, type TestDatabase } from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { KvModule } from '../kv.module';
import { KV_SCHEMA, type KvModuleOptions } from '../kv.di';
import { kvMigrations } from '../migrations';

/**
 * Integration harness: a fresh Postgres database, the kv service running as Nest microservices
 * over real NATS (one or more replicas on the same database), and a client transport that calls
 * the contracts with EngineRequests exactly as the gateway does.
 */
export interface KvReplica {
  /** a client transport that reaches this replica (each replica has its own subject prefix when `isolated`) */
  client: Transport;
  app: INestMicroservice;
  transport: Transport;
  db: DbHandle;
}

export interface KvHarness {
  database: TestDatabase;
  barrier: Barrier;
  /** the clock every replica reads; tests move it */
  clock: { now: Date };
  replicas: KvReplica[];
  /** client of replica 0 */
  client: Transport;
  mount(kind: 'kv-v1' | 'kv-v2' | 'cubbyhole', path?: string): MountInfo;
  /** Calls a contract like the gateway: EngineRequest payload, caller context in the headers. */
  call<C extends Contract>(
    contract: C,
    req: KvRequestInput,
    opts?: CallOptions,
  ): Promise<ContractResponse<C>>;
  /** Same, returning the DomainError (or throwing when the call succeeded). */
  fail(
    contract: Contract,
    req: KvRequestInput,
    opts?: CallOptions,
  ): Promise<{ code: string; message: string; data?: unknown; warnings?: string[] }>;
  /** Starts one more replica on the same database (e.g. a restart after stopReplica). */
  addReplica(): Promise<KvReplica>;
  /** Stops a replica's Nest app (its transport stays open, so nothing serves its prefix when isolated). */
  stopReplica(i: number): Promise<void>;
  close(): Promise<void>;
}

export interface KvRequestInput {
  mount: MountInfo;
  operation: Operation;
  /** mount-relative path; `params.path` defaults to the part after the route's literal prefix */
  path: string;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
}

export interface CallOptions {
  caller?: Partial<CallerContext>;
  /** which replica's client to use (default 0) */
  replica?: number;
}

export interface HarnessOptions {
  replicas?: number;
  /** each replica on its own subject prefix (to address one replica); default: one shared queue group */
  isolated?: boolean;
  kv?: KvModuleOptions;
  /** Extra handlers the test serves in place of other services (e.g. coreTokenAlive), on every client. */
  serve?: (client: Transport) => void;
}

const KV_PREFIXES = ['data/', 'metadata/', 'subkeys/', 'delete/', 'undelete/', 'destroy/'];

function defaultParams(mount: MountInfo, path: string): Record<string, string> {
  if (mount.type === 'kv' && mount.options['version'] === '2') {
    const prefix = KV_PREFIXES.find((p) => path.startsWith(p) || `${path}/` === p);
    return { path: prefix ? path.slice(prefix.length) : path };
  }
  return { path };
}

function mountOptions(kind: 'kv-v1' | 'kv-v2' | 'cubbyhole'): Record<string, string> {
  if (kind === 'cubbyhole') return {};
  return { version: kind === 'kv-v2' ? '2' : '1' };
}

export async function startKvHarness(label: string, opts: HarnessOptions = {}): Promise<KvHarness> {
  const database = await createTestDatabase(label);
  const barrier = new Barrier();
  barrier.load(createKeyring());
  const clock = { now: new Date() };
  const replicas: KvReplica[] = [];
  const shared = uniqueSubjectPrefix(label);
  const startReplica = async (): Promise<KvReplica> => {
    const i = replicas.length;
    const prefix = opts.isolated ? `${shared}-r${i}` : shared;
    const db = createPgDb(database.url, { max: 5 });
    const transport = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: prefix,
      name: `kv-${i}`,
    });
    const client = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: prefix,
      name: `client-${i}`,
    });
    opts.serve?.(client);
    const runtime = { db: db.db, schema: KV_SCHEMA, transport, cipher: barrier, clock: () => clock.now };
    const module = KvModule.register(runtime, { cubbyholeSweepIntervalMs: 0, ...opts.kv });
    const app = await createServiceApp(module, transport, 'kv', { logger: false });
    const replica = { client, app, transport, db };
    replicas.push(replica);
    return replica;
  };
  try {
    await migrateSchema(database.db, KV_SCHEMA, kvMigrations);
    for (let i = 0; i < (opts.replicas ?? 1); i++) await startReplica();
  } catch (error) {
    await closeAll(replicas, database);
    throw error;
  }

  const baseCaller: CallerContext = {
    requestId: 'req',
    namespace: '',
    clientAddress: '127.0.0.1',
    accessor: 'accessor-root',
    tokenRef: 'token-ref-root',
    policies: ['root'],
    root: true,
    sudo: true,
  };

  const send = <C extends Contract>(contract: C, req: KvRequestInput, callOpts: CallOptions = {}) => {
    const payload: EngineRequest = {
      operation: req.operation,
      mount: req.mount,
      path: req.path,
      params: req.params ?? defaultParams(req.mount, req.path),
      body: req.body ?? {},
      query: req.query ?? {},
      headers: {},
    };
    const replica = replicas[callOpts.replica ?? 0];
    if (!replica) throw new Error(`no replica ${callOpts.replica}`);
    const headers = encodeContext({ ...baseCaller, ...callOpts.caller, requestId: randomUUID() });
    return replica.client.request(contract, payload as never, { headers }) as Promise<ContractResponse<C>>;
  };

  const first = replicas[0];
  if (!first) throw new Error('no replica');
  return {
    database,
    barrier,
    clock,
    replicas,
    client: first.client,
    mount: (kind, path) => ({
      path: path ?? `${kind}-${randomUUID().slice(0, 8)}/`,
      uuid: randomUUID(),
      accessor: `${kind}_${randomUUID().slice(0, 8)}`,
      type: kind === 'cubbyhole' ? 'cubbyhole' : 'kv',
      namespace: '',
      options: mountOptions(kind),
      config: { default_lease_ttl: 0, max_lease_ttl: 0 },
    }),
    call: send,
    fail: async (contract, req, callOpts) => {
      try {
        await send(contract, req, callOpts);
      } catch (error) {
        const e = error as { code: string; message: string; data?: unknown; warnings?: string[] };
        return { code: e.code, message: e.message, data: e.data, warnings: e.warnings };
      }
      throw new Error(`${contract.subject} ${req.path} succeeded, expected a failure`);
    },
    addReplica: startReplica,
    stopReplica: async (i) => {
      const r = replicas[i];
      if (!r) throw new Error(`no replica ${i}`);
      await r.app.close();
    },
    close: () => closeAll(replicas, database),
  };
}

async function closeAll(replicas: KvReplica[], database: TestDatabase): Promise<void> {
  for (const r of replicas) {
    await r.app.close().catch(() => undefined);
    await r.client.close().catch(() => undefined);
    await r.transport.close().catch(() => undefined);
    await r.db.close().catch(() => undefined);
  }
  await database.drop();
}
