import 'reflect-metadata';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { Logger, type INestMicroservice } from '@nestjs/common';
import { Barrier, KeyringClient } from '@coffer/barrier';
import { NamespaceService, SealService, TokenService, coreSysEngine } from '@coffer/core-sys';
import { ENGINES, MOUNT_CATALOGUE, routeTableFor, serviceForMountType } from '@coffer/engines';
import {
  createPgliteDb,
  migrateFromSnapshot,
  migrateSchema,
  type PgliteDbHandle,
  type ServiceRuntime,
} from '@coffer/event-store';
import { createGateway } from '@coffer/gateway';
import { nestLogLevels, runWithShutdown, type EngineHost, type ShutdownSequence } from '@coffer/service-host';
import { startTelemetry } from '@coffer/telemetry';
import { InProcessTransport, createServiceApp } from '@coffer/transport';
import { renderBanner } from './banner';
import type { DevAppConfig } from './config';

const VERSION = '0.1.0';

/** The in-memory database `main.ts` started before loading this module, and where it came from. */
export interface EarlyDatabase {
  handle: PgliteDbHandle;
  snapshotFile: string;
}

/**
 * `npm start`: the whole of Coffer in one process. The same feature modules as cluster mode,
 * wired to embedded PGlite and the in-process transport: every engine of `ENGINES`, each engine
 * getting its barrier keyring from core-sys through KeyringClient exactly as a cluster replica does.
 */
export async function runDevProcess(config: DevAppConfig, early: EarlyDatabase | undefined): Promise<void> {
  const logger = new Logger('coffer-dev');
  await runWithShutdown(logger, (shutdown) => start(config, early, shutdown));
}

async function start(
  config: DevAppConfig,
  early: EarlyDatabase | undefined,
  shutdown: ShutdownSequence,
): Promise<void> {
  const logLevels = nestLogLevels(config.logLevel);
  const telemetry = startTelemetry({
    serviceName: 'coffer-dev',
    otlpEndpoint: config.otlpEndpoint,
    settings: config.telemetry,
  });
  shutdown.add('telemetry', () => telemetry.shutdown());
  const clock = () => new Date();

  const database = await openDatabase(config, early, shutdown);
  const transport = new InProcessTransport();
  shutdown.add('transport', () => transport.close());

  const apiUrl = `http://${config.apiAddress}`;
  const host: EngineHost = {
    clusterSecret: config.clusterSecret,
    dev: config.rootTokenId === undefined ? {} : { rootTokenId: config.rootTokenId },
    apiAddr: apiUrl,
    cluster: config.cluster,
    instanceId: `dev-${hostname()}-${process.pid}`,
    mountCatalogue: MOUNT_CATALOGUE,
    ...(config.pluginDirectory === undefined ? {} : { pluginDirectory: config.pluginDirectory }),
    pluginTransport: { kind: 'stdio' },
  };
  // core-sys comes first in the list, so it answers the engines' keyring requests.
  const apps = new Map<string, INestMicroservice>();
  const keyrings: KeyringClient[] = [];
  for (const engine of ENGINES) {
    let cipher: Barrier;
    if (engine.cipher === 'keyring') {
      const keyring = new KeyringClient({
        transport,
        clusterSecret: config.clusterSecret,
        service: engine.name,
      });
      await keyring.start();
      shutdown.add(`${engine.name} keyring`, () => keyring.stop());
      keyrings.push(keyring);
      cipher = keyring.barrier;
    } else {
      cipher = new Barrier();
    }
    const runtime: ServiceRuntime = { db: database.db, schema: engine.schema, transport, cipher, clock };
    const app = await createServiceApp(engine.module(runtime, host), transport, engine.name, {
      logger: logLevels,
    });
    shutdown.add(engine.name, () => app.close());
    apps.set(engine.name, app);
  }

  const core = apps.get(coreSysEngine.name);
  if (!core) throw new Error('dev mode: core-sys is missing from ENGINES');
  const {
    unsealKey,
    rootToken: rootNamespaceToken,
    sealed,
  } = await core.get(SealService).devBootstrap({
    rootTokenId: config.rootTokenId,
    dataDir: config.dataDir,
    mounts: ENGINES.flatMap((engine) => engine.devMounts),
  });
  // The unseal broadcast already triggers a fetch; awaiting one here means the first request
  // after the banner never meets a sealed engine.
  for (const keyring of sealed === true ? [] : keyrings) {
    if (!(await keyring.refresh()))
      throw new Error('dev bootstrap: an engine did not receive the barrier keyring');
  }

  // Managed mode: the managed root namespace exists, and the token printed belongs to it
  // (requests without a namespace reach the root namespace and are refused, as on HCP).
  const rootToken =
    config.managedNamespaceRoot === undefined || sealed === true
      ? rootNamespaceToken
      : await managedRootToken(core, config.managedNamespaceRoot);

  const gateway = createGateway({
    transport,
    ...(config.administrativeNamespace === undefined
      ? {}
      : { administrativeNamespace: config.administrativeNamespace }),
    routeTableFor,
    serviceFor: serviceForMountType,
    listeners: {
      api: {
        address: config.apiAddress,
        maxRequestSize: config.maxRequestSize,
        ...(config.jsonLimits ? { json: config.jsonLimits } : {}),
      },
      ops: { address: config.opsAddress },
    },
    gracefulShutdownWaitSeconds: Math.ceil(config.gracefulShutdownWaitMs / 1000),
    ...(config.engineTimeoutMs === undefined ? {} : { engineTimeoutMs: config.engineTimeoutMs }),
    ...(config.auditTimeoutMs === undefined ? {} : { auditTimeoutMs: config.auditTimeoutMs }),
  });
  // Registered last so that it runs first: health turns 503, in-flight requests finish.
  shutdown.add('gateway', () => gateway.close());
  await gateway.listen();

  process.stdout.write(
    renderBanner({
      apiUrl: gateway.apiAddress,
      opsUrl: gateway.opsAddress ?? `http://${config.opsAddress}`,
      dataDir: config.dataDir,
      version: VERSION,
      unsealKey,
      rootToken,
    }),
  );
}

async function openDatabase(
  config: DevAppConfig,
  early: EarlyDatabase | undefined,
  shutdown: ShutdownSequence,
): Promise<PgliteDbHandle> {
  if (early !== undefined) {
    // whichever handle wins, the one started early is closed too (closing is idempotent)
    shutdown.add('database (early start)', () => early.handle.close());
    const { handle } = await migrateFromSnapshot(early.handle, early.snapshotFile, ENGINES);
    if (handle !== early.handle) shutdown.add('database', () => handle.close());
    return handle;
  }
  // The PGlite cluster gets a folder of its own: the data dir also keeps the dev unseal key.
  // PGlite creates only the last level, so a missing data directory is made here.
  if (config.dataDir !== undefined) await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const database = createPgliteDb(
    config.dataDir === undefined ? {} : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
  shutdown.add('database', () => database.close());
  for (const engine of ENGINES) await migrateSchema(database.db, engine.schema, engine.migrations);
  return database;
}

async function managedRootToken(core: INestMicroservice, namespace: string): Promise<string> {
  const created = await core.get(NamespaceService).create('', namespace, undefined);
  return (await core.get(TokenService).createRootToken({ namespace: created.data.path })).token;
}
