// Shared by every cluster-mode service app (apps/core-sys, apps/kv: identical copies until the
// host moves to a util lib): config, telemetry, pool, migrations, NATS, barrier, ops, drain.
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger, type DynamicModule, type LogLevel } from '@nestjs/common';
import { Barrier, KeyringClient } from '@coffer/barrier';
import { createPgDb, migrateSchema, type ServiceRuntime } from '@coffer/event-store';
import { startTelemetry } from '@coffer/telemetry';
import { connectNatsTransport, createServiceApp } from '@coffer/transport';
import type { Migration } from 'kysely';
import { serviceAppConfig, type ServiceAppConfig } from './config';
import { startOpsServer } from './ops-server';

export interface ClusterServiceSpec {
  /** service name = NATS queue group, e.g. "kv" */
  service: string;
  /** the service's Postgres schema and its migrations */
  schema: string;
  migrations: Record<string, Migration>;
  /**
   * "barrier": this service owns the barrier (core-sys: unseal loads it);
   * "keyring": the barrier is fetched from core-sys with the cluster secret (engines).
   */
  cipher: 'barrier' | 'keyring';
  module: (runtime: ServiceRuntime, host: { config: ServiceAppConfig; instanceId: string }) => DynamicModule;
}

export async function runClusterService(spec: ClusterServiceSpec): Promise<void> {
  const config = serviceAppConfig.loadOrExit();
  const logger = new Logger(`coffer-${spec.service}`);
  const instanceId = `${spec.service}-${hostname()}-${process.pid}`;
  const telemetry = startTelemetry({
    serviceName: `coffer-${spec.service}`,
    otlpEndpoint: config.otlpEndpoint,
  });

  const database = createPgDb(config.databaseUrl, {
    max: config.databaseMaxConnections,
    applicationName: instanceId,
    onError: (error) => logger.warn(`idle database connection failed: ${error.message}`),
  });
  await migrateSchema(database.db, spec.schema, spec.migrations);
  const transport = await connectNatsTransport({
    servers: config.natsUrl.split(',').map((s) => s.trim()),
    subjectPrefix: config.subjectPrefix,
    name: instanceId,
  });

  let barrier: Barrier;
  let keyring: KeyringClient | undefined;
  if (spec.cipher === 'keyring') {
    keyring = new KeyringClient({ transport, clusterSecret: config.clusterSecret, service: spec.service });
    await keyring.start();
    barrier = keyring.barrier;
  } else {
    // Starts sealed: sys/unseal loads the keyring into it, sys/seal wipes it.
    barrier = new Barrier();
  }

  const runtime: ServiceRuntime = {
    db: database.db,
    schema: spec.schema,
    transport,
    cipher: barrier,
    clock: () => new Date(),
  };
  const app = await createServiceApp(spec.module(runtime, { config, instanceId }), transport, spec.service, {
    logger: nestLogLevels(config.logLevel),
  });
  const ops = await startOpsServer(config.opsAddress);
  logger.log(
    `${instanceId} serving on ${config.natsUrl} (prefix "${config.subjectPrefix}"), ops on ${ops.address}`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    ops.beginShutdown();
    if (config.gracefulShutdownWaitMs > 0) await delay(config.gracefulShutdownWaitMs);
    logger.log(`${signal}: draining`);
    // Draining the transport first lets requests already taken answer before the app closes.
    await transport.close();
    await app.close();
    keyring?.stop();
    barrier.wipe();
    await database.close();
    await ops.close();
    await telemetry.shutdown();
    logger.log('stopped');
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) {
        logger.warn(`${signal} again: exiting without draining`);
        process.exit(1);
      }
      stopping = true;
      shutdown(signal).then(
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
