import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import {
  coreMountTable,
  coreTokenResolve,
  sysContracts,
  type Broadcast,
  type CallerContext,
  type Contract,
  type ContractResponse,
  type MountEntry,
  type MountInfo,
  type ResolvedToken,
} from '@coffer/contracts';
import type { TestDatabase } from '@coffer/testing';
import type { Transport } from '@coffer/transport';
import type { z } from 'zod';
import { SealService } from '../seal/seal.service';
import { CoreSysHarness, type CoreSysRequestInput } from './core-sys-harness';

/**
 * One core-sys replica initialised and unsealed the way dev mode does it, for the token store,
 * userpass and identity specs: calls run as the real root token (or any token's caller context).
 */
export interface DevCoreSysHarness {
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
    req: CoreSysRequestInput,
    caller?: CallerContext,
  ): Promise<ContractResponse<C>>;
  /** Same, answering the DomainError body (fails the test if the call succeeds). */
  fail(contract: Contract, req: CoreSysRequestInput, caller?: CallerContext): Promise<ErrorBody>;
  /** Records every message of a broadcast from now on (subscribed once this resolves). */
  record<B extends Broadcast>(broadcast: B): Promise<z.output<B['payload']>[]>;
  close(): Promise<void>;
}

export interface ErrorBody {
  code: string;
  message: string;
  warnings?: string[];
}

export type { CoreSysRequestInput } from './core-sys-harness';

/** kv v2 at secret/, as dev mode mounts it (kv's default dev mount). */
export const DEV_SECRET_MOUNT = {
  path: 'secret',
  type: 'kv',
  options: { version: '2' },
  description: 'key/value secret storage',
};

const toInfo = (m: MountEntry): MountInfo => ({
  path: m.path,
  uuid: m.uuid,
  accessor: m.accessor,
  type: m.type,
  namespace: m.namespace,
  options: m.options,
  config: m.config,
});

export async function startCoreSysHarness(label: string): Promise<DevCoreSysHarness> {
  const cluster = await CoreSysHarness.start(label);
  try {
    const { app } = cluster.replica(0);
    const { rootToken } = await app.get(SealService).devBootstrap({ mounts: [DEV_SECRET_MOUNT] });
    return await bootstrapped(cluster, app, rootToken);
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

async function bootstrapped(
  cluster: CoreSysHarness,
  app: INestMicroservice,
  rootToken: string,
): Promise<DevCoreSysHarness> {
  const { client } = cluster;
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

  const call = <C extends Contract>(
    contract: C,
    req: CoreSysRequestInput,
    caller: CallerContext = rootCaller,
  ) => cluster.call(contract, req, caller);

  const mount = (path: string): MountInfo => {
    const m = mounts.get(path);
    if (!m) throw new Error(`no mount ${path}`);
    return m;
  };

  return {
    database: cluster.database,
    app,
    client,
    clock: cluster.clock,
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
    record: (broadcast) => cluster.record(broadcast),
    close: () => cluster.close(),
  };
}
