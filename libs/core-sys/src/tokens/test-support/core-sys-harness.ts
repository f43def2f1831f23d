import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier } from '@coffer/barrier';
import {
  coreMountTable,
  coreTokenResolve,
  encodeContext,
  sysContracts,
  type Broadcast,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type EngineRequest,
  type MountEntry,
  type MountInfo,
  type Operation,
  type ResolvedToken,
} from '@coffer/contracts';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import { createTestDatabase, natsUrl, uniqueSubjectPrefix, type TestDatabase } from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import type { z } from 'zod';
import { CoreSysModule } from '../../core-sys.module';
import { CORE_SYS_SCHEMA, coreSysMigrations } from '../../migrations';
import { SealService } from '../../seal/seal.service';

/**
 * Integration harness for the token store, userpass and identity: a fresh Postgres database, the
 * real CoreSysModule as a Nest microservice over real NATS, initialised and unsealed the way dev
 * mode does it, and a client transport calling contracts the way the gateway does (EngineRequest
 * payload, caller context in the headers).
 */
export interface CoreSysHarness {
  database: TestDatabase;
  app: INestMicroservice;
  client: Transport;
  /** the clock core-sys reads; tests move it */
  clock: { now: Date };
  rootToken: string;
  mount(path: string): MountInfo;
  /** Enables an auth method through sys/auth and returns its mount. */
  enableAuth(path: string, type: string, config?: Record<string, unknown>): Promise<MountInfo>;
  /** The caller context the gateway would send for a token. */
  callerFor(token: string): Promise<CallerContext>;
  call<C extends Contract>(
    contract: C,
    req: RequestInput,
    caller?: CallerContext,
  ): Promise<ContractResponse<C>>;
  /** Same, answering the DomainError body (fails the test if the call succeeds). */
  fail(contract: Contract, req: RequestInput, caller?: CallerContext): Promise<ErrorBody>;
  /** Records every message of a broadcast from now on (subscribed once this resolves). */
  record<B extends Broadcast>(broadcast: B): Promise<z.output<B['payload']>[]>;
  close(): Promise<void>;
}

export interface ErrorBody {
  code: string;
  message: string;
  warnings?: string[];
}

export interface RequestInput {
  mount: MountInfo;
  operation?: Operation;
  path: string;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

const toInfo = (m: MountEntry): MountInfo => ({
  path: m.path,
  uuid: m.uuid,
  accessor: m.accessor,
  type: m.type,
  namespace: m.namespace,
  options: m.options,
  config: m.config,
});

export async function startCoreSysHarness(label: string): Promise<CoreSysHarness> {
  const database = await createTestDatabase(label);
  const prefix = uniqueSubjectPrefix(label);
  let db: DbHandle | undefined;
  let transport: Transport | undefined;
  let client: Transport | undefined;
  let app: INestMicroservice | undefined;
  const closeAll = async () => {
    await app?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await database.drop();
  };
  try {
    db = createPgDb(database.url, { max: 8 });
    transport = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: prefix,
      name: `core-sys-${label}`,
    });
    client = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: prefix,
      name: `client-${label}`,
    });
    await migrateSchema(db.db, CORE_SYS_SCHEMA, coreSysMigrations);
    const clock = { now: new Date() };
    const runtime = {
      db: db.db,
      schema: CORE_SYS_SCHEMA,
      transport,
      cipher: new Barrier(),
      clock: () => clock.now,
    };
    const options = {
      clusterSecret: randomUUID(),
      apiAddr: 'http://127.0.0.1:8200',
      instanceId: `test-${label}`,
    };
    app = await createServiceApp(CoreSysModule.register(runtime, options), transport, 'core-sys', {
      logger: false,
    });
    const { rootToken } = await app.get(SealService).devBootstrap({});
    return build(database, app, client, clock, rootToken, closeAll);
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function build(
  database: TestDatabase,
  app: INestMicroservice,
  client: Transport,
  clock: { now: Date },
  rootToken: string,
  close: () => Promise<void>,
): Promise<CoreSysHarness> {
  const mounts = new Map<string, MountInfo>();
  const refreshMounts = async () => {
    const table = await client.request(coreMountTable, {});
    for (const m of table.mounts) mounts.set(m.path, toInfo(m));
  };
  await refreshMounts();

  const callerFor = async (token: string): Promise<CallerContext> => {
    const resolved: ResolvedToken = await client.request(coreTokenResolve, { token });
    return {
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      sudo: false,
      accessor: resolved.accessor,
      tokenRef: resolved.tokenRef,
      policies: [...resolved.policies, ...resolved.identityPolicies],
      entityId: resolved.entityId || undefined,
      displayName: resolved.displayName,
      root: resolved.policies.includes('root'),
    };
  };
  const rootCaller = await callerFor(rootToken);

  const call = <C extends Contract>(contract: C, req: RequestInput, caller: CallerContext = rootCaller) => {
    const payload: EngineRequest = {
      operation: req.operation ?? 'update',
      mount: req.mount,
      path: req.path,
      params: req.params ?? {},
      body: req.body ?? {},
      query: req.query ?? {},
      headers: req.headers ?? {},
    };
    return client.request(contract, payload as never, { headers: encodeContext(caller) }) as Promise<
      ContractResponse<C>
    >;
  };

  const mount = (path: string): MountInfo => {
    const m = mounts.get(path);
    if (!m) throw new Error(`no mount ${path}`);
    return m;
  };

  return {
    database,
    app,
    client,
    clock,
    rootToken,
    mount,
    enableAuth: async (path, type, config) => {
      await call(sysContracts.authEnable, {
        mount: mount('sys/'),
        path: `auth/${path}`,
        params: { path },
        body: { type, ...(config ? { config } : {}) },
      });
      await refreshMounts();
      return mount(`auth/${path}/`);
    },
    callerFor,
    call,
    fail: async (contract, req, caller) => {
      try {
        await call(contract, req, caller);
      } catch (error) {
        const e = error as ErrorBody;
        return { code: e.code, message: e.message, warnings: e.warnings };
      }
      throw new Error(`${contract.subject} ${req.path} succeeded, expected a failure`);
    },
    record: async <B extends Broadcast>(broadcast: B) => {
      const seen: z.output<B['payload']>[] = [];
      client.subscribe(broadcast, (payload) => {
        seen.push(payload);
      });
      await client.flush();
      return seen;
    },
    close,
  };
}
