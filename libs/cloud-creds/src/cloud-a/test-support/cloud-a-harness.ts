/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment -- test support: the specs read engine answers loosely, as their own *.int-spec.ts rules allow */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { ClientSecretCredential } from '@azure/identity';
import { Barrier, createKeyring } from '@coffer/barrier';
import {
  coreLeasesHeld,
  encodeContext,
  engineLeaseContracts,
  type Contract,
  type MountInfo,
} from '@coffer/contracts';
import { cloudA } from '@coffer/contracts/cloud-a';
import { createPgDb, migrateSchema, type DbHandle } from '@coffer/event-store';
import {
  createTestDatabase,
  makeTestCertificates,
  natsUrl,
  startFakeAzure,
  uniqueSubjectPrefix,
  type FakeAzure,
  type TestCertificates,
  type TestDatabase,
} from '@coffer/testing';
import { connectNatsTransport, createServiceApp, type Transport } from '@coffer/transport';
import { CLOUD_CREDS_SCHEMA } from '../../cloud-creds.di';
import { CloudCredsModule } from '../../cloud-creds.module';
import { cloudCredsMigrations } from '../../cloud-creds.parts';

const leases = engineLeaseContracts('cloud-creds');

export interface CloudAHarness {
  azure: FakeAzure;
  certs: TestCertificates;
  app: INestMicroservice;
  mount: MountInfo;
  /** a client of the service, for calls `call` does not shape (history questions) */
  client: Transport;
  readerId: string;
  groupId: string;
  /** cred ids core-sys (played by the harness) holds a lease for; and what it was asked */
  leased: Set<string>;
  leaseQuestions: string[][];
  /** moves the service's clock forward */
  advance(ms: number): void;
  call(contract: Contract, operation: string, p: string, body?: object, params?: object): Promise<any>;
  failure(promise: Promise<unknown>): Promise<{ code: string; message: string }>;
  lease(op: 'revoke' | 'renew', internal: any): Promise<any>;
  configure(extra?: Record<string, unknown>): Promise<any>;
  /** an access token for the credential (the real client-credentials flow), or the flow's error */
  tokenWith(clientId: string, secret: string): Promise<{ token: string }>;
  noLeftovers(): void;
  close(): Promise<void>;
}

/**
 * cloud-a on real Postgres and NATS against a local HTTPS Azure (token authority, Graph, ARM), the
 * real @azure/identity client-credentials flow, the mount's own CA (ca_certificate). The harness
 * plays core-sys's lease lookup (`core.sys.leases.held`) from `leased`.
 */
export async function startCloudAHarness(label: string): Promise<CloudAHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), `${label}-`));
  const certs = makeTestCertificates(dir);
  const azure = await startFakeAzure({ cert: certs.cert, key: certs.key });
  const readerId = azure.addRoleDefinition('Reader');
  azure.addRoleDefinition('Twin');
  azure.addRoleDefinition('Twin');
  const groupId = azure.addGroup('deployers');
  const database: TestDatabase = await createTestDatabase(label);
  await migrateSchema(database.db, CLOUD_CREDS_SCHEMA, cloudCredsMigrations);
  const prefix = uniqueSubjectPrefix(label);
  const db: DbHandle = createPgDb(database.url, { max: 5 });
  const transport: Transport = await connectNatsTransport({
    servers: natsUrl(),
    subjectPrefix: prefix,
    name: 'cloud-a',
  });
  const client: Transport = await connectNatsTransport({
    servers: natsUrl(),
    subjectPrefix: prefix,
    name: 'cloud-a-client',
  });
  const leased = new Set<string>();
  const leaseQuestions: string[][] = [];
  client.serve(coreLeasesHeld, 'core-sys', (req) => {
    leaseQuestions.push(req.values);
    return Promise.resolve({ held: req.values.filter((v) => leased.has(v)) });
  });
  const barrier = new Barrier();
  barrier.load(createKeyring());
  let clockOffsetMs = 0;
  const runtime = {
    db: db.db,
    schema: CLOUD_CREDS_SCHEMA,
    transport,
    cipher: barrier,
    clock: () => new Date(Date.now() + clockOffsetMs),
  };
  const app = await createServiceApp(CloudCredsModule.register(runtime), transport, 'cloud-creds', {
    logger: false,
  });
  const mount: MountInfo = {
    path: 'cloud-a/',
    uuid: randomUUID(),
    accessor: 'cloud_a_test',
    type: 'cloud-a',
    namespace: '',
    options: {},
    config: { default_lease_ttl: 0, max_lease_ttl: 0 },
  };
  const headers = () =>
    encodeContext({
      requestId: randomUUID(),
      namespace: '',
      clientAddress: '127.0.0.1',
      tokenRef: 'root',
      root: true,
    });
  const call = (contract: Contract, operation: string, p: string, body = {}, params = {}) =>
    client.request(
      contract,
      { operation, mount, path: p, params, body, query: {}, headers: {} },
      { headers: headers() },
    ) as Promise<any>;
  return {
    azure,
    certs,
    app,
    mount,
    client,
    readerId,
    groupId,
    leased,
    leaseQuestions,
    advance: (ms) => {
      clockOffsetMs += ms;
    },
    call,
    failure: (promise) =>
      promise.then(
        () => {
          throw new Error('expected a failure');
        },
        (error: { code: string; message: string }) => ({ code: error.code, message: error.message }),
      ),
    lease: (op, internal) =>
      client.request(
        leases[op],
        {
          lease_id: 'cloud-a/creds/x/abc',
          mount,
          internal,
          increment: 0,
          issue_time: new Date().toISOString(),
        },
        { headers: headers() },
      ),
    configure: (extra = {}) =>
      call(cloudA.configWrite, 'update', 'config', {
        subscription_id: azure.subscriptionId,
        tenant_id: azure.tenantId,
        client_id: azure.clientId,
        client_secret: azure.clientSecret,
        authority_host: azure.authorityHost,
        graph_endpoint: azure.graphEndpoint,
        resource_manager_endpoint: azure.resourceManagerEndpoint,
        ca_certificate: certs.ca,
        ...extra,
      }),
    tokenWith: async (clientId, secret) => {
      const token = await new ClientSecretCredential(azure.tenantId, clientId, secret, {
        authorityHost: azure.authorityHost,
        disableInstanceDiscovery: true,
        agent: new Agent({ ca: certs.ca }),
        retryOptions: { maxRetries: 0 },
      }).getToken(`${azure.graphEndpoint}/.default`);
      if (!token) throw new Error('no token');
      return token;
    },
    noLeftovers: () =>
      expect(azure.leftovers()).toEqual({
        applications: 0,
        passwords: 0,
        servicePrincipals: 0,
        roleAssignments: 0,
        memberships: 0,
      }),
    close: async () => {
      await app.close().catch(() => undefined);
      await client.close();
      await transport.close();
      await db.close();
      await database.drop();
      await azure.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
