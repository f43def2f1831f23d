import 'reflect-metadata';
import { hostname } from 'node:os';
import path from 'node:path';
import { Logger } from '@nestjs/common';
import { Barrier, KeyringClient } from '@coffer/barrier';
import { CORE_SYS_SCHEMA, CoreSysModule, SealService, coreSysMigrations } from '@coffer/core-sys';
import { createPgliteDb, migrateSchema, type ServiceRuntime } from '@coffer/event-store';
import { createGateway } from '@coffer/gateway';
import { KV_SCHEMA, KvModule, kvMigrations } from '@coffer/kv';
import { nestLogLevels, runMain, runWithShutdown, type ShutdownSequence } from '@coffer/service-host';
import { startTelemetry } from '@coffer/telemetry';
import { InProcessTransport, createServiceApp } from '@coffer/transport';
import { renderBanner } from './banner';
import { devAppConfig, type DevAppConfig } from './config';

const VERSION = '0.1.0';

/**
 * `npm start`: the whole of Coffer in one process. The same feature modules as cluster mode,
 * wired to embedded PGlite and the in-process transport; kv gets its barrier keyring from
 * core-sys through KeyringClient exactly as a cluster replica does.
 */
async function main(): Promise<void> {
  const config = devAppConfig.loadOrExit({ argv: [] });
  const logger = new Logger('coffer-dev');
  await runWithShutdown(logger, (shutdown) => start(config, shutdown));
}

async function start(config: DevAppConfig, shutdown: ShutdownSequence): Promise<void> {
  const logLevels = nestLogLevels(config.logLevel);
  const telemetry = startTelemetry({ serviceName: 'coffer-dev', otlpEndpoint: config.otlpEndpoint });
  shutdown.add('telemetry', () => telemetry.shutdown());
  const clock = () => new Date();

  // The PGlite cluster gets a folder of its own: the data dir also keeps the dev unseal key.
  const database = createPgliteDb(
    config.dataDir === undefined ? {} : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
  shutdown.add('database', () => database.close());
  await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
  await migrateSchema(database.db, KV_SCHEMA, kvMigrations);
  const transport = new InProcessTransport();
  shutdown.add('transport', () => transport.close());
  const runtime = (schema: string, cipher: ServiceRuntime['cipher']): ServiceRuntime => ({
    db: database.db,
    schema,
    transport,
    cipher,
    clock,
  });

  const apiUrl = `http://${config.apiAddress}`;
  const core = await createServiceApp(
    CoreSysModule.register(runtime(CORE_SYS_SCHEMA, new Barrier()), {
      clusterSecret: config.clusterSecret,
      dev: config.rootTokenId === undefined ? {} : { rootTokenId: config.rootTokenId },
      apiAddr: apiUrl,
      instanceId: `dev-${hostname()}-${process.pid}`,
    }),
    transport,
    'core-sys',
    { logger: logLevels },
  );
  shutdown.add('core-sys', () => core.close());
  const keyring = new KeyringClient({ transport, clusterSecret: config.clusterSecret, service: 'kv' });
  await keyring.start();
  shutdown.add('keyring', () => keyring.stop());
  const kv = await createServiceApp(KvModule.register(runtime(KV_SCHEMA, keyring.barrier)), transport, 'kv', {
    logger: logLevels,
  });
  shutdown.add('kv', () => kv.close());

  const { unsealKey, rootToken } = await core.get(SealService).devBootstrap({
    rootTokenId: config.rootTokenId,
    dataDir: config.dataDir,
  });
  // The unseal broadcast already triggers a fetch; awaiting one here means the first request
  // after the banner never meets a sealed kv.
  if (!(await keyring.refresh())) throw new Error('dev bootstrap: kv did not receive the barrier keyring');

  const gateway = createGateway({
    transport,
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

runMain(main);
