import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { Barrier } from '@coffer/barrier';
import {
  encodeContext,
  isDomainError,
  type Broadcast,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type EngineRequest,
  type MountInfo,
  type Operation,
  sysContracts,
} from '@coffer/contracts';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import {
  createTestDatabase,
  natsUrl,
  uniqueSubjectPrefix,
  waitFor,
  type TestDatabase,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Subscription, type Transport } from '@coffer/transport';
import type { z } from 'zod';
import { CoreSysModule } from '../core-sys.module';
import { CORE_SYS_SCHEMA, coreSysMigrations } from '../migrations';
import type { CoreSysOptions } from '../core-sys.di';
import { TEST_MOUNT_CATALOGUE } from './test-mount-catalogue';

/**
 * Integration harness for the core-sys specs: a fresh Postgres database, core-sys replicas
 * running the real CoreSysModule as Nest microservices over real NATS (one queue group, one
 * subject prefix), and a client transport that calls the contracts with EngineRequests the way
 * the gateway does. `startCoreSysHarness` (dev-harness.ts) adds a dev-mode bootstrap on top.
 */
export interface CoreSysReplica {
  app: INestMicroservice;
  transport: Transport;
  db: DbHandle;
  barrier: Barrier;
  closed: boolean;
}

export interface SysCall {
  operation: Operation;
  path: string;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** forwarded request headers (routes that read the client token themselves) */
  headers?: Record<string, string>;
}

/** A call to any mount (operation defaults to update). */
export interface CoreSysRequestInput extends Partial<Omit<SysCall, 'path'>> {
  mount: MountInfo;
  path: string;
  headers?: Record<string, string>;
}

export interface Failure {
  code: string;
  message: string;
  data?: unknown;
}

export interface InitResult {
  keys: string[];
  keys_base64: string[];
  root_token: string;
}

export const CLUSTER_SECRET = 'int-spec-cluster-secret';

export const SYS_MOUNT: MountInfo = {
  path: 'sys/',
  uuid: 'sys-mount-uuid',
  accessor: 'system_00000000',
  type: 'system',
  namespace: '',
  options: {},
  config: { default_lease_ttl: 0, max_lease_ttl: 0 },
};

export const ROOT_CALLER: CallerContext = {
  requestId: 'req',
  namespace: '',
  clientAddress: '127.0.0.1',
  accessor: 'accessor-root',
  tokenRef: 'token-ref-root',
  policies: ['root'],
  root: true,
  sudo: true,
};

export class CoreSysHarness {
  readonly replicas: CoreSysReplica[] = [];
  readonly clock = { now: new Date() };
  private readonly subscriptions: Subscription[] = [];

  private constructor(
    readonly label: string,
    readonly database: TestDatabase,
    readonly prefix: string,
    readonly client: Transport,
  ) {}

  static async start(label: string, replicas = 1): Promise<CoreSysHarness> {
    const database = await createTestDatabase(label);
    const prefix = uniqueSubjectPrefix(label);
    let client: Transport | undefined;
    try {
      await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
      client = await connectNatsTransport({
        servers: natsUrl(),
        subjectPrefix: prefix,
        name: `${label}-client`,
      });
      const harness = new CoreSysHarness(label, database, prefix, client);
      for (let i = 0; i < replicas; i++) await harness.addReplica();
      return harness;
    } catch (error) {
      await client?.close().catch(() => undefined);
      await database.drop();
      throw error;
    }
  }

  async addReplica(): Promise<CoreSysReplica> {
    const i = this.replicas.length;
    const db = createPgDb(this.database.url, { max: 8 });
    const transport = await connectNatsTransport({
      servers: natsUrl(),
      subjectPrefix: this.prefix,
      name: `${this.label}-${i}`,
    });
    const barrier = new Barrier();
    const options: CoreSysOptions = {
      clusterSecret: CLUSTER_SECRET,
      apiAddr: 'http://127.0.0.1:8200',
      mountCatalogue: TEST_MOUNT_CATALOGUE,
      instanceId: `${this.label}-${i}`,
    };
    const runtime = {
      db: db.db,
      schema: CORE_SYS_SCHEMA,
      transport,
      cipher: barrier,
      clock: () => this.clock.now,
    };
    const app = await createServiceApp(CoreSysModule.register(runtime, options), transport, 'core-sys', {
      logger: false,
    });
    const replica: CoreSysReplica = { app, transport, db, barrier, closed: false };
    this.replicas.push(replica);
    return replica;
  }

  replica(i: number): CoreSysReplica {
    const r = this.replicas[i];
    if (!r) throw new Error(`no replica ${i}`);
    return r;
  }

  async stopReplica(i: number): Promise<void> {
    const r = this.replica(i);
    if (r.closed) return;
    r.closed = true;
    await r.app.close();
    await r.transport.close();
    await r.db.close();
  }

  /** Calls a contract like the gateway does: EngineRequest payload, caller context in the headers. */
  call<C extends Contract>(
    contract: C,
    req: CoreSysRequestInput,
    caller: CallerContext,
  ): Promise<ContractResponse<C>> {
    const payload: EngineRequest = {
      operation: req.operation ?? 'update',
      mount: req.mount,
      path: req.path,
      params: req.params ?? {},
      body: req.body ?? {},
      query: req.query ?? {},
      headers: req.headers ?? {},
    };
    return this.client.request(contract, payload as never, { headers: encodeContext(caller) });
  }

  /** Calls a sys contract (root caller unless told otherwise). */
  sys<C extends Contract>(
    contract: C,
    call: SysCall,
    caller: Partial<CallerContext> = {},
  ): Promise<ContractResponse<C>> {
    return this.call(
      contract,
      { ...call, mount: SYS_MOUNT },
      { ...ROOT_CALLER, ...caller, requestId: randomUUID() },
    );
  }

  async failure(promise: Promise<unknown>): Promise<Failure> {
    try {
      await promise;
    } catch (error) {
      if (isDomainError(error)) return { code: error.code, message: error.message, data: error.data };
      throw error;
    }
    throw new Error('the call succeeded, expected a DomainError');
  }

  async initialise(shares = 1, threshold = 1): Promise<InitResult> {
    const body = { secret_shares: shares, secret_threshold: threshold };
    return (await this.sys(sysContracts.init, { operation: 'update', path: 'init', body }))
      .body as InitResult;
  }

  /**
   * Submits the keys; once the cluster reports unsealed, waits until every running replica is
   * (followers fetch the keyring from the leader a moment later, and a request the queue group
   * hands to one of them before that is answered "Vault is sealed").
   */
  async unseal(keys: readonly string[]): Promise<Record<string, unknown>> {
    let status: Record<string, unknown> = {};
    for (const key of keys) {
      status = (await this.sys(sysContracts.unseal, { operation: 'update', path: 'unseal', body: { key } }))
        .body as Record<string, unknown>;
    }
    if (status['sealed'] === false) {
      await waitFor(() => this.replicas.every((r) => r.closed || !r.barrier.sealed), {
        timeoutMs: 30_000,
        message: 'every core-sys replica unsealed',
      });
    }
    return status;
  }

  /** Collects every payload of a broadcast seen by the client from now on (subscribed once this resolves). */
  async record<B extends Broadcast>(broadcast: B): Promise<z.output<B['payload']>[]> {
    const seen: z.output<B['payload']>[] = [];
    this.subscriptions.push(this.client.subscribe(broadcast, (payload) => void seen.push(payload)));
    await this.client.flush();
    return seen;
  }

  async close(): Promise<void> {
    for (const s of this.subscriptions) s.unsubscribe();
    for (let i = 0; i < this.replicas.length; i++) await this.stopReplica(i).catch(() => undefined);
    await this.client.close().catch(() => undefined);
    await this.database.drop();
  }
}
