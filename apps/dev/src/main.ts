import 'reflect-metadata';
import { hostname } from 'node:os';
import path from 'node:path';
import { Logger, type INestMicroservice, type LogLevel } from '@nestjs/common';
import { Barrier, KeyringClient } from '@coffer/barrier';
import { CORE_SYS_SCHEMA, CoreSysModule, SealService, coreSysMigrations } from '@coffer/core-sys';
import { createPgliteDb, migrateSchema, type ServiceRuntime } from '@coffer/event-store';
import { createGateway } from '@coffer/gateway';
import { KV_SCHEMA, KvModule, kvMigrations } from '@coffer/kv';
import { startTelemetry } from '@coffer/telemetry';
import { InProcessTransport, createServiceApp } from '@coffer/transport';
import { renderBanner } from './banner';
import { devAppConfig } from './config';

const VERSION = '0.1.0';

/**
 * `npm start`: the whole of Coffer in one process. The same feature modules as cluster mode,
 * wired to embedded PGlite and the in-process transport; kv gets its barrier keyring from
 * core-sys through KeyringClient exactly as a cluster replica does.
 */
async function main(): Promise<void> {
  const config = devAppConfig.loadOrExit({ argv: [] });
  const logger = new Logger('coffer-dev');
  const logLevels = nestLogLevels(config.logLevel);
  const telemetry = startTelemetry({ serviceName: 'coffer-dev', otlpEndpoint: config.otlpEndpoint });
  const clock = () => new Date();

  // The PGlite cluster gets a folder of its own: the data dir also keeps the dev unseal key.
  const database = createPgliteDb(
    config.dataDir === undefined ? {} : { dataDir: path.join(config.dataDir, 'pgdata') },
  );
  await migrateSchema(database.db, CORE_SYS_SCHEMA, coreSysMigrations);
  await migrateSchema(database.db, KV_SCHEMA, kvMigrations);
  const transport = new InProcessTransport();
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
  const keyring = new KeyringClient({ transport, clusterSecret: config.clusterSecret, service: 'kv' });
  await keyring.start();
  const kv = await createServiceApp(KvModule.register(runtime(KV_SCHEMA, keyring.barrier)), transport, 'kv', {
    logger: logLevels,
  });

  const { unsealKey, rootToken } = await core.get(SealService).devBootstrap({
    rootTokenId: config.rootTokenId,
    dataDir: config.dataDir,
  });
  // The unseal broadcast already triggers a fetch; awaiting one here means the first request
  // after the banner never meets a sealed kv.
  if (!(await keyring.refresh())) throw new Error('dev bootstrap: kv did not receive the barrier keyring');

  const gateway = await createGateway({
    transport,
    listeners: {
      api: { address: config.apiAddress, maxRequestSize: config.maxRequestSize },
      ops: { address: config.opsAddress },
    },
    gracefulShutdownWaitSeconds: Math.ceil(config.gracefulShutdownWaitMs / 1000),
  });
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

  const apps: INestMicroservice[] = [kv, core];
  let stopping = false;
  const shutdown = async () => {
    // The gateway first: health turns 503, in-flight requests finish, then the services stop.
    await gateway.close();
    for (const app of apps) await app.close();
    keyring.stop();
    await transport.close();
    await database.close();
    await telemetry.shutdown();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.log(`${signal}: shutting down`);
      shutdown().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(1);
        },
      );
    });
  }
}

/** Vault-style log_level to Nest's levels. */
function nestLogLevels(level: string): LogLevel[] {
  const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  const from = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 }[level] ?? 2;
  return order.slice(from);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
